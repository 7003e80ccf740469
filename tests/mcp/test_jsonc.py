"""The JSONC reader under client config installs: it reads what `json` reads, plus comments and
trailing commas, and says where a broken file breaks."""

from __future__ import annotations

import json
from typing import Any

import pytest

from serpent_tk.mcp import jsonc

DOCUMENTS: list[Any] = [
    {"a\"b": "x\u00e9//y/*z*/", "c": "", "d": "tab\tline\nback\\slash"},
    {"n": [0, -1, 2.5, 1e3, -0.25E-2], "t": True, "f": False, "z": None, "e": {}, "l": []},
    [{"deep": [[{"er": "\U0001f40d"}]]}],
    "just a string",
]


@pytest.mark.parametrize("value", DOCUMENTS)
def test_it_reads_what_json_reads(value: Any) -> None:
    for text in (json.dumps(value), json.dumps(value, indent=4),
                 json.dumps(value, ensure_ascii=False)):
        assert jsonc.loads(text) == value


def test_comments_and_trailing_commas_are_read_past() -> None:
    text = '/* head */ {"a": [1, 2,], // two\n "b": {"c": "//not a comment",},}\n// end'
    assert jsonc.loads(text) == {"a": [1, 2], "b": {"c": "//not a comment"}}
    assert jsonc.loads("  // nothing\n") == {}


@pytest.mark.parametrize(("text", "where"), [
    ('{"a": "x', "unterminated string, or a line break inside one, at line 1 column 7"),
    ('{"a": "x\ny"}', "unterminated string, or a line break inside one, at line 1 column 7"),
    ('{"a": "\\q"}', "bad string"),
    ('{\n  "a" 1}', "expected ':' at line 2 column 7"),
    ('{"a": 1 "b": 2}', "expected ',' or '}' at line 1 column 9"),
    ("{a: 1}", "expected a quoted key"),
    ('{"a": 1} x', "unexpected text after the end"),
    ('{"a": 1 /* open', "unclosed /* comment"),
    ("[" * 500, "nested too deeply"),
])
def test_a_broken_file_says_where(text: str, where: str) -> None:
    with pytest.raises(jsonc.JsoncError, match=where.replace("(", r"\(").replace("*", r"\*")):
        jsonc.loads(text)


def test_removing_a_member_that_is_not_there_changes_nothing() -> None:
    text = '{"mcpServers": {"a": 1}} // mine'
    assert jsonc.remove_member(text, ["mcpServers", "serpent"]) == text
    assert jsonc.remove_member(text, ["elsewhere", "serpent"]) == text
