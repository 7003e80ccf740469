"""The envelope and error shapes of docs/contracts.md §2-3, pinned for every code; and every
code named (`ErrorCode.NOT_FOUND`), never spelled again as a string, in the app and library."""

from __future__ import annotations

import ast
import logging

import pytest
from pydantic import ValidationError

from library.errors import ALL_CODES, RETRYABLE, LibraryError
from library.schemas import AssetUpdateIn, FileImportIn
from serpent_tk.automation import envelope
from serpent_tk.automation.errors import from_validation, internal, unknown_command
from tests.test_architecture import ROOT, all_sources, modules, report, under

# Details each code may carry besides code/message/retryable/libraryId.
ALLOWED_EXTRA = {"INTERNAL": {"incidentId"}, "VERSION_CONFLICT": {"currentVersion"},
                 "INVALID_ARGUMENT": {"field"}, "PERMISSION_DENIED": {"missing"}}


@pytest.mark.parametrize("code", ALL_CODES)
@pytest.mark.parametrize("library_id", [None, "lib_0123456789abcdef"])
def test_error_shape_per_code(code: str, library_id: str | None) -> None:
    failure = LibraryError(code, "A message for people.", currentVersion=7, field="name",
                           incidentId="inc_0a1b2c", secretPath="/opt/serpent/internal.py",
                           missing=["library.write"])
    answer = envelope.error(failure, library_id)
    assert answer["status"] == "error" and set(answer) == {"status", "error"}
    body = answer["error"]
    assert body["code"] == code and body["message"] == "A message for people."
    if code in RETRYABLE:
        assert body["retryable"] is True
    else:
        assert "retryable" not in body
    assert ("currentVersion" in body) == (code == "VERSION_CONFLICT")
    assert ("libraryId" in body) == (library_id is not None)
    assert "secretPath" not in body
    extra = set(body) - {"code", "message", "retryable", "libraryId", "currentVersion"}
    assert extra <= {"field", "incidentId", "missing"}


def test_ok_shapes() -> None:
    assert envelope.ok({"a": 1}) == {"status": "ok", "result": {"a": 1}}
    assert envelope.ok({"a": 1}, "lib_x", 42) == {
        "status": "ok", "libraryId": "lib_x", "libraryChangeSequence": 42, "result": {"a": 1}}


def test_confirmation_shape() -> None:
    answer = envelope.confirmation_required("ch_abc", "2026-01-01T00:00:00+00:00",
                                            "trash.empty", {"summary": "x", "targets": [],
                                                            "irreversible": True}, "lib_x")
    assert answer["status"] == "confirmation_required"
    assert answer["challenge"] == {"id": "ch_abc", "expiresAt": "2026-01-01T00:00:00+00:00",
                                   "command": "trash.empty"}
    assert answer["riskReport"]["irreversible"] is True and "result" not in answer


def test_list_shape() -> None:
    assert envelope.page([1]) == {"items": [1], "nextCursor": None, "truncated": False}
    assert envelope.normalize_page({"items": []}) == {"items": [], "nextCursor": None,
                                                      "truncated": False}


def test_validation_names_the_camel_case_field() -> None:
    with pytest.raises(ValidationError) as caught:
        FileImportIn.model_validate({"sourcePaths": ["/a"], "folderId": "nope"})
    failure = from_validation(caught.value)
    assert failure.code == "INVALID_ARGUMENT" and failure.details["field"] == "folderId"
    assert failure.message.startswith("folderId: ")
    with pytest.raises(ValidationError) as caught:
        AssetUpdateIn.model_validate({"assetId": "ast_0123456789", "rating": 9, "bogus": 1})
    failure = from_validation(caught.value)
    assert failure.details["field"] in {"rating", "bogus"} and "1 more problem" in \
        failure.message


def test_unknown_command_is_one_answer() -> None:
    failure = unknown_command("serpent_nope")
    assert failure.code == "NOT_FOUND" and failure.message == "Unknown tool: serpent_nope"


def test_internal_logs_the_incident_and_hides_the_traceback(
        caplog: pytest.LogCaptureFixture) -> None:
    try:
        raise RuntimeError("/home/secret/internal/path.py exploded")
    except RuntimeError as error:
        with caplog.at_level(logging.ERROR):
            failure = internal(error, "a test")
    incident = failure.details["incidentId"]
    assert incident.startswith("inc_") and incident in failure.message
    assert "/home/secret" not in failure.message and "Traceback" not in failure.message
    logged = [r for r in caplog.records if incident in r.getMessage()]
    assert logged and logged[0].exc_info is not None
    answer = envelope.error(failure)
    assert answer["error"]["incidentId"] == incident


def test_a_whole_model_error_has_no_field() -> None:
    with pytest.raises(ValidationError) as caught:
        AssetUpdateIn.model_validate({"assetId": "ast_0123456789"})
    failure = from_validation(caught.value)
    assert failure.message == "give at least one of name, notes, rating, sourceUrl"
    assert envelope.error(failure)["error"] == {"code": "INVALID_ARGUMENT",
                                                "message": failure.message}


# The shipped plugins are written as any plugin is: on the plugin API, codes as strings.
CODES_AS_STRINGS_ALLOWED = ("library/errors.py", "serpent_tk/plugins/builtin")


def codes_as_strings(source: str, codes: frozenset[str]) -> list[tuple[int, str]]:
    """Where `source` spells an error code as a string literal (`reply.code == "NOT_FOUND"`)
    instead of naming `ErrorCode.NOT_FOUND`; docstrings and f-string text do not count."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value in codes and id(node) not in docstrings]


def test_error_codes_are_named_not_spelled() -> None:
    from library.errors import ErrorCode

    codes = frozenset(code.value for code in ErrorCode)
    offenders = [f"{path.relative_to(ROOT)}:{line} {code!r}"
                 for path in all_sources()
                 if not any(under(path, allowed) for allowed in CODES_AS_STRINGS_ALLOWED)
                 for line, code in codes_as_strings(path.read_text(encoding="utf-8"), codes)]
    assert not offenders, report(offenders, "an error code is ErrorCode.X (library/errors.py), "
                                 "never a string spelled again")


def test_the_code_finder_sees_comparisons_and_keys_but_not_words() -> None:
    codes = frozenset({"NOT_FOUND", "BUSY"})
    source = ('"""NOT_FOUND in a docstring."""\n'
              'if reply.code == "NOT_FOUND": pass\n'
              'WORDS = {"BUSY": "The library is busy."}\n'
              'text = "NOT_FOUND is a word here too"\n')
    assert codes_as_strings(source, codes) == [(2, "NOT_FOUND"), (3, "BUSY")]


def test_the_error_body_type_names_every_key_an_error_can_carry() -> None:
    """`envelope.ErrorBody` (the one type of an error's body) knows every public detail: the
    builder copies them in under that type, so a detail added to PUBLIC_DETAIL_KEYS alone
    would be a key the type does not know."""
    from serpent_tk.automation.errors import PUBLIC_DETAIL_KEYS

    known = set(envelope.ErrorBody.__annotations__)
    assert {"code", "message", "retryable", "currentVersion", "libraryId",
            *PUBLIC_DETAIL_KEYS} == known


def test_the_accessors_read_each_kind_of_answer() -> None:
    from library.errors import ErrorCode

    done = envelope.ok({"a": 1}, "lib_x", 3)
    failed = envelope.error(LibraryError(ErrorCode.BUSY, "Busy."), "lib_x")
    asked = envelope.confirmation_required("ch_abc", "2026-01-01T00:00:00+00:00",
                                           "trash.empty", {"summary": "x"}, "lib_x")
    assert envelope.result_of(done) == {"a": 1} and envelope.error_code(done) is None
    assert envelope.error_of(done) is None
    assert envelope.error_code(failed) is ErrorCode.BUSY and envelope.result_of(failed) is None
    assert envelope.error_of(failed) == {"code": "BUSY", "message": "Busy.", "retryable": True,
                                         "libraryId": "lib_x"}
    assert envelope.error_code(asked) is None and envelope.result_of(asked) is None
    assert envelope.failed(ErrorCode.CANCELLED, "Stopped.") == {
        "status": "error", "error": {"code": "CANCELLED", "message": "Stopped."}}
    assert envelope.as_json(done) is done


def test_the_window_reads_answers_through_reply() -> None:
    """Only `ui/shell/commands.py` (`Reply`, `describe_error`) opens a reply's envelope: the
    rest of the window reads `reply.ok`, `reply.code`, `reply.challenge`, ..., so an answer's
    status, error and challenge are read, typed, in one place."""
    reader = ROOT / "serpent_tk/ui/shell/commands.py"
    offenders = [f"{path.relative_to(ROOT)}:{node.lineno}"
                 for path in modules("serpent_tk/ui") if path != reader
                 for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(node, ast.Attribute) and node.attr == "envelope"]
    assert not offenders, report(offenders, "the window reads an answer through Reply, never "
                                 "its .envelope")
