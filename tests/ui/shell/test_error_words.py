"""What the window says when a write was caught by its library worker's death (issue 25): the
outcome the host could not settle (part of it saved, or not known), in the person's words
and language; a write of which nothing was saved keeps the usual 'restarting, try again'."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from serpent_tk.ui.language import translate
from serpent_tk.ui.shell.commands import Reply, describe_error


def _failed(outcome: str | None) -> Reply:
    error = {"code": "WORKER_UNAVAILABLE", "message": "The library worker stopped."}
    return Reply({"status": "error", "error": error if outcome is None
                  else {**error, "outcome": outcome}})


@pytest.fixture
def english() -> Iterator[None]:
    translate.use(translate.ENGLISH)
    yield
    translate.use(translate.ENGLISH)


def test_the_window_says_what_is_known_of_a_write_caught_by_a_crash(english: None) -> None:
    partial = describe_error(_failed("partial"), "import the files")
    assert partial.startswith("Could not import the files: The library stopped twice")
    assert "saved" in partial and "look before trying again" in partial
    unknown = describe_error(_failed("unknown"))
    assert "whether this was saved is not known" in unknown
    for settled in ("not-saved", None):
        assert describe_error(_failed(settled)) == \
            "The library is restarting. Please try again in a moment."


def test_the_outcome_words_are_in_chinese_too(english: None) -> None:
    translate.use(translate.CHINESE)
    assert describe_error(_failed("partial")) == \
        "资源库在执行时两次停止。已完成的部分已保存；请先查看，再重试。"
    assert describe_error(_failed("unknown")) == \
        "资源库停止后没有重新启动，无法确定是否已保存。请在资源库重新打开后先查看，再重试。"
