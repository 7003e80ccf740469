"""Finds the string literals of the window's code that a person would read but that no
catalogue call (`_`, `N_`, `ngettext`, `pgettext`, `known`) wraps (the AST check of
tests/ui/language/test_catalogues.py).

A literal counts as words for people when it is handed to a place that shows text (a
`text=`, `label=`, `title=`... argument, a tooltip, a toast, a window title) or when it
reads like a phrase (two words or more, or ends with "…"). Docstrings, log lines, Tcl
options, event sequences, style names and identifiers are not. A line that really shows
something else (a key name, a font family) says so with `# i18n: not words` (on one of its
lines, or on a comment line just above its statement).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

CATALOGUE_CALLS = {"_", "N_", "ngettext", "pgettext", "known"}
LOG_NAMES = {"log", "logger", "logging"}
SINK_KEYWORDS = {"text", "label", "title", "message", "prompt", "heading", "confirm_label",
                 "run_label", "summary", "aim", "initial", "detail", "placeholder", "note"}
SINK_CALLS = {"tooltip": 2, "toast": 0, "ShowToast": 0, "Notice": 0, "title": 0,
              "show_counts": 0, "flash": 0, "_say": 0, "show_error": 0, "on_error": 0,
              "on_problem": 0}
PRAGMA = "i18n: not words"
PHRASE = re.compile(r"[A-Za-z]{2,}[^\n]*?\s[^\n]*?[A-Za-z]{2,}")
NOT_SHOWN = re.compile(r"^(<[^>]+>|-[a-z]+|#[0-9a-fA-F]{3,8}|[a-z0-9_.:\-]+|\w+\.T\w+)$")
NOT_WORDS = re.compile(
    r"^(<[^>]+>|-[a-z]+|#[0-9a-fA-F]{3,8}|[\w.:/\\\-+*%,=@|^$?()\[\]{}]*|"
    r"[A-Z][\w]*\.T\w+|\w+://\S*)$")


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    text: str


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def _docstrings(tree: ast.AST) -> set[ast.AST]:
    found: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef |
                      ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(first.value)
    return found


def _called(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _receiver(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id
    return ""


def _text_of(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return ""


def _is_sink(node: ast.AST, parent: ast.AST | None) -> bool:
    if isinstance(parent, ast.keyword):
        return parent.arg in SINK_KEYWORDS
    if isinstance(parent, ast.Call) and node in parent.args:
        position = SINK_CALLS.get(_called(parent))
        return position is not None and parent.args.index(node) == position
    return False


def _reads_like_words(text: str) -> bool:
    stripped = text.strip()
    if not re.search(r"[A-Za-z]{2,}", stripped) or NOT_WORDS.match(stripped):
        return False
    return bool(PHRASE.search(stripped)) or stripped.endswith("…")


def findings(path: Path, root: Path) -> list[Finding]:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    parents = _parents(tree)
    docstrings = _docstrings(tree)
    found: list[Finding] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant | ast.JoinedStr) or node in docstrings:
            continue
        if isinstance(node, ast.Constant) and not isinstance(node.value, str):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.JoinedStr):
            continue                                  # judged as the whole f-string
        text = _text_of(node)
        if not text or not (_reads_like_words(text) or (
                _is_sink(node, parent) and re.search(r"[A-Za-z]{2,}", text)
                and not NOT_SHOWN.match(text.strip()))):
            continue
        if _inside_catalogue_or_log(node, parents):
            continue
        span = lines[node.lineno - 1:(node.end_lineno or node.lineno)]
        statement = _statement(node, parents)
        span += lines[statement.lineno - 1:(statement.end_lineno or statement.lineno)]
        above = lines[statement.lineno - 2].strip() if statement.lineno > 1 else ""
        span += [above] if above.startswith("#") else []          # a comment just above
        if any(PRAGMA in line for line in span):
            continue
        found.append(Finding(str(path.relative_to(root)), node.lineno, text))
    return found


def _inside_catalogue_or_log(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    current: ast.AST | None = node
    while current is not None:
        if isinstance(current, ast.Call):
            if _called(current) in CATALOGUE_CALLS:
                return True
            if _receiver(current) in LOG_NAMES:
                return True
        if isinstance(current, ast.Subscript | ast.Compare):
            return True                # a key looked up, or a value compared: not shown
        current = parents.get(current)
    return False


def _statement(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.AST:
    current = node
    while not isinstance(current, ast.stmt) and current in parents:
        current = parents[current]
    return current
