"""JSON with comments and trailing commas (VS Code, Zed, Cline): read it, and set or remove one
member of an object by changing only that member's text, so every comment, blank line,
trailing comma and key order elsewhere in the file stays as the person wrote it.

Pure functions, any thread. Used by `client_configs` to install Serpent into a client's file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"')
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None}


class JsoncError(ValueError):
    """Text that is not JSON with comments; says where (line and column)."""


@dataclass
class Member:
    key: str
    key_start: int
    value: Node
    comma: int | None = None  # where the comma after the value is, if there is one


@dataclass
class Node:
    start: int
    end: int  # one past the value's last character
    members: list[Member] | None = None  # an object
    items: list[Node] | None = None  # an array
    scalar: Any = None

    def python(self) -> Any:
        if self.members is not None:
            return {m.key: m.value.python() for m in self.members}  # the last duplicate wins
        if self.items is not None:
            return [item.python() for item in self.items]
        return self.scalar

    def ended(self, end: int) -> Node:
        self.end = end
        return self

    def member(self, key: str) -> Member | None:
        found = [m for m in self.members or [] if m.key == key]
        return found[-1] if found else None


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.pos, self.depth = text, 0, 0

    def fail(self, what: str, at: int | None = None) -> JsoncError:
        at = self.pos if at is None else at
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return JsoncError(f"{what} at line {line} column {column}")

    def skip(self) -> None:
        """Past white space and comments."""
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\r\n\ufeff":
                self.pos += 1
            elif text.startswith("//", self.pos):
                newline = text.find("\n", self.pos)
                self.pos = len(text) if newline < 0 else newline
            elif text.startswith("/*", self.pos):
                close = text.find("*/", self.pos + 2)
                if close < 0:
                    raise self.fail("unclosed /* comment")
                self.pos = close + 2
            else:
                return

    def value(self) -> Node:
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("expected a value, found the end of the file")
        char, start = self.text[self.pos], self.pos
        if char == "{":
            return self.container(start, "}")
        if char == "[":
            return self.container(start, "]")
        if char == '"':
            return Node(start, 0, scalar=self.string()).ended(self.pos)
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, start):
                self.pos = start + len(word)
                return Node(start, self.pos, scalar=literal)
        number = _NUMBER.match(self.text, start)
        if number:
            self.pos = number.end()
            return Node(start, self.pos, scalar=json.loads(number.group(0)))
        raise self.fail(f"unexpected {char!r}")

    def string(self) -> str:
        match = _STRING.match(self.text, self.pos)
        if match is None:
            raise self.fail("unterminated string, or a line break inside one,")
        try:
            text: str = json.loads(match.group(0))
        except json.JSONDecodeError as error:
            raise self.fail(f"bad string ({error.msg})") from None
        self.pos = match.end()
        return text

    def container(self, start: int, close: str) -> Node:
        self.depth += 1
        if self.depth > 200:
            raise self.fail("nested too deeply")
        self.pos += 1
        node = Node(start, 0, members=[] if close == "}" else None,
                    items=[] if close == "]" else None)
        while True:
            self.skip()
            if self.text.startswith(close, self.pos):
                self.pos += 1
                self.depth -= 1
                return node.ended(self.pos)
            if node.members is not None:
                if not self.text.startswith('"', self.pos):
                    raise self.fail("expected a quoted key or '}'")
                key_start = self.pos
                key = self.string()
                self.skip()
                if not self.text.startswith(":", self.pos):
                    raise self.fail("expected ':'")
                self.pos += 1
                member = Member(key, key_start, self.value())
                node.members.append(member)
            else:
                assert node.items is not None
                node.items.append(self.value())
            self.skip()
            if self.text.startswith(",", self.pos):
                if node.members:
                    node.members[-1].comma = self.pos
                self.pos += 1
            elif not self.text.startswith(close, self.pos):
                raise self.fail(f"expected ',' or {close!r}")


def parse_tree(text: str) -> Node | None:
    """The document's tree with positions; None for a file of only white space and comments."""
    parser = _Parser(text)
    parser.skip()
    if parser.pos >= len(text):
        return None
    root = parser.value()
    parser.skip()
    if parser.pos < len(text):
        raise parser.fail("unexpected text after the end of the document")
    return root


def loads(text: str) -> Any:
    """The document's value; `{}` for an empty file."""
    root = parse_tree(text)
    return {} if root is None else root.python()


# -- editing one member -----------------------------------------------------------------------

def set_member(text: str, path: Sequence[str], value: Any) -> str:
    """`text` with the member at `path` (keys of nested objects) set to `value`; missing
    objects on the way are added. Only that member's text changes. JsoncError when the text
    is not JSONC or something on the way is not an object."""
    root = parse_tree(text)
    if root is None:  # empty, or only comments: they stay above the new document
        head = text.rstrip() + "\n" if text.strip() else ""
        return head + json.dumps(_nest(path, value), indent=2, ensure_ascii=False) + "\n"
    node = root
    for depth, key in enumerate(path):
        if node.members is None:
            where = "the document" if depth == 0 else repr(".".join(path[:depth]))
            raise JsoncError(f"{where} is not an object")
        member = node.member(key)
        if member is None:
            return _insert(text, node, key, _nest(path[depth + 1:], value))
        if depth == len(path) - 1:
            line_start = text.rfind("\n", 0, member.key_start) + 1
            if text[line_start:member.key_start].strip():  # a one-line object: stay on it
                written = json.dumps(value, ensure_ascii=False)
            else:
                written = _dump(value, _line_indent(text, member.key_start), _indent_unit(text))
            return text[:member.value.start] + written + text[member.value.end:]
        node = member.value
    raise JsoncError("an empty path")


def remove_member(text: str, path: Sequence[str]) -> str:
    """`text` without the member at `path` (unchanged when it is not there). Only that
    member's text goes, and the comma that separated it."""
    node = parse_tree(text)
    for key in path[:-1]:
        if node is None or node.members is None:
            return text
        found = node.member(key)
        node = found.value if found else None
    if node is None or node.members is None:
        return text
    member = node.member(path[-1])
    if member is None:
        return text
    index = node.members.index(member)
    previous = node.members[index - 1] if index else None
    after = member.comma + 1 if member.comma is not None else member.value.end
    line_start = text.rfind("\n", 0, member.key_start) + 1
    line_end = _end_of_line(text, after)
    own_lines = (not text[line_start:member.key_start].strip() and line_end is not None)
    if own_lines:
        assert line_end is not None
        start, end = line_start, line_end
    elif member.comma is not None:
        start, end = member.key_start, _past_spaces(text, after)
    elif previous is not None and previous.comma is not None:
        start, end = previous.comma, member.value.end
    else:
        start, end = member.key_start, member.value.end
    edited = text[:start] + text[end:]
    if own_lines and member.comma is None and previous is not None and \
            previous.comma is not None:
        edited = edited[:previous.comma] + edited[previous.comma + 1:]  # it was the last
    return edited


def _insert(text: str, obj: Node, key: str, value: Any) -> str:
    assert obj.members is not None
    unit = _indent_unit(text)
    key_text = json.dumps(key, ensure_ascii=False)
    if not obj.members:
        close = obj.end - 1
        indent = _line_indent(text, obj.start)
        inner = text[obj.start + 1:close]
        member_indent = indent + unit
        newline = "\r\n" if "\r\n" in text else "\n"
        entry = (newline + member_indent + key_text + ": "
                 + _dump(value, member_indent, unit).replace("\n", newline))
        if inner.strip():  # only comments inside: keep them, put the member first
            return text[:obj.start + 1] + entry + text[obj.start + 1:]
        return text[:obj.start + 1] + entry + newline + indent + text[close:]
    last = obj.members[-1]
    line_start = text.rfind("\n", 0, last.key_start) + 1
    on_own_line = not text[line_start:last.key_start].strip()
    if not on_own_line:  # a one-line object: stay on its line
        compact = json.dumps(value, ensure_ascii=False)
        if last.comma is not None:
            spot = last.comma + 1
            return text[:spot] + f" {key_text}: {compact}," + text[spot:]
        spot = last.value.end
        return text[:spot] + f", {key_text}: {compact}" + text[spot:]
    member_indent = text[line_start:last.key_start]
    newline = "\r\n" if "\r\n" in text else "\n"
    entry = newline + member_indent + key_text + ": " + _dump(value, member_indent, unit).replace(
        "\n", newline)
    after_last = last.comma + 1 if last.comma is not None else last.value.end
    line_end = text.find("\n", after_last)
    line_end = len(text) if line_end < 0 else line_end
    rest = text[after_last:line_end].strip()
    # after the line's own comment (a `// note` belongs to the member it follows), else at once
    spot = line_end if not rest or rest.startswith("//") else after_last
    if spot == line_end and text[spot - 1:spot] == "\r":
        spot -= 1
    if last.comma is not None:  # the file ends its members with commas: so does this one
        return text[:spot] + entry + "," + text[spot:]
    return text[:last.value.end] + "," + text[last.value.end:spot] + entry + text[spot:]


def _end_of_line(text: str, position: int) -> int | None:
    """One past the newline ending `position`'s line when only white space follows on it."""
    newline = text.find("\n", position)
    rest = text[position:] if newline < 0 else text[position:newline]
    if rest.strip():
        return None
    return len(text) if newline < 0 else newline + 1


def _past_spaces(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t":
        position += 1
    return position


def _line_indent(text: str, position: int) -> str:
    line_start = text.rfind("\n", 0, position) + 1
    line = text[line_start:position]
    return line[:len(line) - len(line.lstrip(" \t"))]


def _indent_unit(text: str) -> str:
    """The file's own indentation step (tabs, 2 or 4 spaces); two spaces by default."""
    widths = [len(m.group(1)) for m in re.finditer(r"\n( +)\S", text)]
    if re.search(r"\n\t+\S", text) and not widths:
        return "\t"
    return " " * min(widths) if widths else "  "


def _dump(value: Any, indent: str, unit: str) -> str:
    lines = json.dumps(value, indent=unit, ensure_ascii=False).split("\n")
    return "\n".join([lines[0]] + [indent + line for line in lines[1:]])


def _nest(path: Sequence[str], value: Any) -> Any:
    for key in reversed(path):
        value = {key: value}
    return value
