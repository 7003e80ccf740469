"""The mode × capability matrix, checked by calling every command in every mode.

read-only: read commands only; auto: reads, writes, trash, history, library management
(dangerous ones behind a challenge); full-access: the same plus plugin tools. A denied call
is PERMISSION_DENIED and changes nothing.
"""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from library.protocol import CallMeta
from library.schemas import AssetBatchOut, AssetIds, Model
from serpent_tk.automation import policy
from serpent_tk.automation.caller import Caller
from serpent_tk.automation.gateway import Gateway
from serpent_tk.automation.plugins.specs import plugin_command
from serpent_tk.automation.registry import CommandSpec
from tests.automation.conftest import CLAUDE, FULL, READER, UI, call, code, ok

CALLERS = {"read-only": READER, "auto": CLAUDE, "full-access": FULL, "ui": UI}
EXPECTED_CAPABILITIES = {
    "read-only": {"library.read", "ui.notify"},
    "auto": {"library.read", "ui.notify", "library.write", "history.write", "library.manage"},
    "full-access": {"library.read", "ui.notify", "library.write", "history.write",
                    "library.manage", "plugin.invoke"},
}


def test_modes_grant_exactly_these_capabilities() -> None:
    for mode, expected in EXPECTED_CAPABILITIES.items():
        assert policy.capabilities_of(mode) == expected
    assert policy.capabilities_of("root") == frozenset()


def allowed(mode: str, spec: CommandSpec) -> bool:
    if spec.internal:  # Serpent's plumbing for plugin analysers: unknown to everyone else
        return False
    if mode == "ui":
        mode = "full-access"
    if spec.name.startswith("plugin."):
        return mode == "full-access"
    return spec.risk == "read" or mode in ("auto", "full-access")


def concrete(spec: CommandSpec, library: str, tmp_path: Path) -> dict[str, Any]:
    """The spec's example with this test's library and paths that stay inside tmp_path."""
    def fix(value: Any) -> Any:
        if isinstance(value, str) and value.startswith("/home/ana"):
            return str(tmp_path / "elsewhere" / value.removeprefix("/home/ana/"))
        if isinstance(value, list):
            return [fix(v) for v in value]
        if isinstance(value, dict):
            return {k: fix(v) for k, v in value.items()}
        return value
    args = fix(dict(spec.example))
    if "libraryId" in args:
        args["libraryId"] = library
    return dict(args)


class TargetsIn(Model):
    asset_ids: AssetIds


def _plugin_handler(library_id: str, args: dict[str, Any],
                    meta: CallMeta) -> Future[dict[str, Any]]:
    done: Future[dict[str, Any]] = Future()
    done.set_result({"items": [], "changed": 0})
    return done


@pytest.mark.parametrize("mode", list(CALLERS))
def test_every_command_in_every_mode(gateway: Gateway, library: str,
                                               tmp_path: Path, mode: str) -> None:
    gateway.registry.add_plugin_commands("pixel-tools", [plugin_command(
        "pixel-tools", "upscale", input_model=TargetsIn, output_model=AssetBatchOut,
        summary="Upscale images with the pixel tools plugin for sharper previews.",
        returns="per-asset results.", handler=_plugin_handler,
        example={"libraryId": "lib_01j9z3k4m5n6p7q8", "assetIds": ["ast_01j9z3k4m5n6p7q8"]})])
    gateway.exposure.set_exposed("pixel-tools", True)
    caller: Caller = CALLERS[mode]
    specs = list(gateway.registry.commands.values())
    denied = [s for s in specs if not allowed(mode, s)]
    permitted = sorted((s for s in specs if allowed(mode, s)),
                       key=lambda s: (s.name == "library.close", s.name))
    before = ok(gateway, "history.list", {"libraryId": library})
    sequence = ok(gateway, "library.change-sequence", {"libraryId": library})
    for spec in denied:
        answer = call(gateway, spec.name, concrete(spec, library, tmp_path), caller)
        hidden = spec.name.startswith("plugin.") or spec.internal
        expected = "NOT_FOUND" if hidden else "PERMISSION_DENIED"
        assert code(answer) == expected, (spec.name, answer)
    assert ok(gateway, "history.list", {"libraryId": library}) == before
    assert ok(gateway, "library.change-sequence", {"libraryId": library}) == sequence
    for spec in permitted:
        answer = call(gateway, spec.name, concrete(spec, library, tmp_path), caller)
        assert code(answer) not in {"PERMISSION_DENIED", "INTERNAL", "INVALID_ARGUMENT"}, (
            spec.name, answer)
    if mode == "read-only":
        assert not any(s.risk != "read" for s in permitted)
    else:
        assert {"asset.trash", "history.undo", "library.create", "trash.empty"} <= {
            s.name for s in permitted}
