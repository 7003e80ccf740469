"""The one query builder: a filter tree (rules, and any/all groups of them) to one SQL
condition with parameters, shared by smart collections and `asset.search`.

Runs in the worker process, any thread. `check` refuses a bad rule with INVALID_ARGUMENT
naming it (`rules.rules.2.value`, `rules.rules.1.rules.0.op` inside a group) and returns the
tree in canonical form (what a smart collection stores); `compile_tree` turns a tree into a
`Condition` over `assets a`. A search's flat filters are turned into the same tree
(`asset_search`), plus `Raw` leaves for what only a search can ask (the trash flag, a
collection's members, unfiled): so the same filter through a rule and through a search
matches the same assets by construction. Each rule's SQL is `rulefields`.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from library.errors import INVALID_ARGUMENT, NOT_FOUND, LibraryError
from library.schemas import Rule, RuleGroup, RuleSet
from library.schemas.collections import MAX_DEPTH
from library.worker.rows import rulefields

MAX_RULES = 200  # rules in a whole tree, all groups together


@dataclass(frozen=True)
class Condition:
    sql: str  # over `assets a`, wrapped in parentheses
    params: list[Any]
    key: str  # names this filter (pagination cursors are bound to it)
    timeless: bool = True  # False: it names the current time ("in the last 7 days")


@dataclass(frozen=True)
class Raw:
    """A leaf only the search builds: SQL over `assets a` with its parameters."""

    sql: str
    params: list[Any] = field(default_factory=list)


Node = Rule | RuleGroup | Raw


@dataclass
class Group:
    """A group being built (a search's filters: `Rule`s, `Raw`s and groups, ANDed)."""

    match: str = "all"
    rules: list[Node | Group] = field(default_factory=list)


# -- checking ---------------------------------------------------------------------------
def check(ruleset: RuleSet, conn: sqlite3.Connection | None = None, *,
          field: str = "rules") -> RuleSet:
    """The rules in canonical form, or INVALID_ARGUMENT naming the bad rule.

    With `conn`, a folder rule must name an existing folder (else NOT_FOUND).
    """
    counter = [0]
    checked = _check_group(ruleset, conn, field, 1, counter)
    return RuleSet(match=checked.match, rules=checked.rules)


def _check_group(group: RuleGroup, conn: sqlite3.Connection | None, where: str, depth: int,
                 counter: list[int]) -> RuleGroup:
    if depth > MAX_DEPTH:
        raise LibraryError(INVALID_ARGUMENT, f"{where}: groups nest at most {MAX_DEPTH} "
                           f"deep", field=where)
    canonical: list[Rule | RuleGroup] = []
    for index, node in enumerate(group.rules):
        path = f"{where}.rules.{index}"
        if isinstance(node, RuleGroup):
            canonical.append(_check_group(node, conn, path, depth + 1, counter))
            continue
        counter[0] += 1
        if counter[0] > MAX_RULES:
            raise LibraryError(INVALID_ARGUMENT, f"{path}: at most {MAX_RULES} rules in all",
                               field=path)
        canonical.append(check_rule(node, conn, path))
    return type(group)(match=group.match, rules=canonical)  # the same level of the tree


def check_rule(rule: Rule, conn: sqlite3.Connection | None, path: str) -> Rule:
    try:
        value = rulefields.canonical(rule)
    except rulefields.BadValue as bad:
        raise LibraryError(INVALID_ARGUMENT, f"{path}.{bad.part}: {bad.message}",
                           field=f"{path}.{bad.part}") from None
    if conn is not None and rule.field == "folder" and not conn.execute(
            "SELECT 1 FROM folders WHERE id = ?", (value,)).fetchone():
        raise LibraryError(NOT_FOUND, f"{path}.value: no folder has this id.",
                           field=f"{path}.value")
    return Rule(field=rule.field, op=rule.op, value=value)


# -- compiling --------------------------------------------------------------------------
def compile_rules(ruleset: RuleSet, now: datetime | None = None) -> Condition:
    """One SQL condition matching the assets these rules pick (checked here)."""
    return compile_tree(check(ruleset), now)


def compile_stored(rules_json: str, now: datetime | None = None) -> Condition:
    return compile_rules(RuleSet.model_validate_json(rules_json), now)


def compile_tree(tree: RuleGroup | Group, now: datetime | None = None) -> Condition:
    """A canonical tree (checked rules) as one condition."""
    params: list[Any] = []
    sql = _sql(tree, now or datetime.now(UTC), params)
    return Condition(sql, params, key_of(tree), not _uses_now(tree))


def _uses_now(node: Node | Group) -> bool:
    if isinstance(node, Raw):
        return False
    if isinstance(node, Rule):
        return node.op == "in-last-days"
    return any(_uses_now(child) for child in node.rules)


def _sql(node: Node | Group, now: datetime, params: list[Any]) -> str:
    if isinstance(node, Raw):
        params += node.params
        return f"({node.sql})"
    if isinstance(node, Rule):
        text, values = rulefields.sql(node, now)
        params += values
        return f"({text})"
    if not node.rules:
        return "(1)"
    joiner = " AND " if node.match == "all" else " OR "
    return "(" + joiner.join(_sql(child, now, params) for child in node.rules) + ")"


def key_of(tree: RuleGroup | Group) -> str:
    """A short name of the tree's content (equal trees, equal keys)."""
    return hashlib.sha256(json.dumps(_plain(tree), sort_keys=True).encode()).hexdigest()[:16]


def _plain(node: Node | Group) -> Any:
    if isinstance(node, Raw):
        return {"sql": node.sql, "params": node.params}
    if isinstance(node, Rule):
        return node.model_dump(mode="json")
    return {"match": node.match, "rules": [_plain(child) for child in node.rules]}
