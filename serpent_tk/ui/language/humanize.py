"""Words and numbers for people, in the window's language: "2 min ago", "12.4 MB", "3
assets", "added by Claude via MCP".

Thread-safe (pure functions).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from serpent_tk.ui.language import formats
from serpent_tk.ui.language.gateway_words import actor_name, assets, files, listed
from serpent_tk.ui.language.translate import _, ngettext

__all__ = ["ago", "size", "number", "assets", "files", "listed", "actor_label", "changed_by",
           "parse_time"]

number = formats.number
size = formats.size


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
        if not seconds_precise:
            return _("just now")
        n = max(0, int(seconds))
        return ngettext("{n} s ago", "{n} s ago", n).format(n=n)
    minutes = round(seconds / 60)
    if minutes < 60:
        return ngettext("{n} min ago", "{n} min ago", minutes).format(n=minutes)
    hours = round(seconds / 3600)
    if hours < 24:
        return ngettext("{n} h ago", "{n} h ago", hours).format(n=hours)
    days = round(seconds / 86400)
    if days == 1:
        return _("yesterday")
    if days < 14:
        return ngettext("{n} day ago", "{n} days ago", days).format(n=days)
    return formats.day(when.astimezone())


def actor_label(actor: Any) -> str:
    """Who an `Actor` dict names, in the window's language ("You" → "You" / "你")."""
    if isinstance(actor, dict):
        label = str(actor.get("label") or actor.get("source") or "")
    else:
        label = str(actor or "")
    return actor_name(label) if label else _("someone")


def changed_by(added: bool, actor: Any, moment: Any) -> str:
    """'Added by Claude via MCP, 2 min ago' ('Added by you, ...' for the person);
    `added` False: 'Changed by ...'."""
    label = actor.get("label") if isinstance(actor, dict) else actor
    who = _("you") if label == "You" else actor_label(actor)
    when = ago(moment)
    if added:
        return (_("Added by {who}, {when}") if when else _("Added by {who}")).format(
            who=who, when=when)
    return (_("Changed by {who}, {when}") if when else _("Changed by {who}")).format(
        who=who, when=when)


def duration(seconds: float | None) -> str:
    """A video's or sound's length as a clock reads it: 0:07, 3:25, 1:02:03 ("" unknown)."""
    if seconds is None:
        return ""
    whole = int(round(float(seconds)))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
