"""Words and numbers for people: "2 min ago", "3.4 MB", "added by Claude via MCP".

Thread-safe (pure functions).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from library.units import human_size


def parse_time(value: Any) -> datetime | None:
    """An ISO timestamp from the wire (or a datetime) as an aware datetime."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str) and value:
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def ago(moment: datetime | str | None, now: datetime | None = None,
        seconds_precise: bool = False) -> str:
    """'just now' (or '12 s ago'), '2 min ago', '3 h ago', 'yesterday', '5 days ago', a date."""
    when = parse_time(moment)
    if when is None:
        return ""
    now = now or datetime.now(UTC)
    seconds = (now - when).total_seconds()
    if seconds < 45:
        return f"{max(0, int(seconds))} s ago" if seconds_precise else "just now"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min ago"
    hours = round(seconds / 3600)
    if hours < 24:
        return f"{hours} h ago"
    days = round(seconds / 86400)
    if days == 1:
        return "yesterday"
    if days < 14:
        return f"{days} days ago"
    return when.astimezone().strftime("%d %b %Y")


def size(num_bytes: int | None) -> str:
    """'12.4 MB' (`library.units.human_size`, the one size formatter); '' when unknown."""
    return "" if num_bytes is None else human_size(num_bytes)


def count(n: int, singular: str, plural: str | None = None) -> str:
    return f"{n:,} {singular if n == 1 else (plural or singular + 's')}"


def actor_label(actor: Any) -> str:
    """The audit label of an `Actor` dict ("You", "Claude Desktop via MCP")."""
    if isinstance(actor, dict):
        return str(actor.get("label") or actor.get("source") or "someone")
    return str(actor or "someone")


def changed_by(verb: str, actor: Any, moment: Any) -> str:
    """'Added by Claude via MCP, 2 min ago' ('Added by you, ...' for the person)."""
    label = actor_label(actor)
    who = "you" if label == "You" else label
    when = ago(moment)
    return f"{verb} by {who}, {when}" if when else f"{verb} by {who}"
