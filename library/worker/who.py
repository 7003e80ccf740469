"""Who made a change: the actor every change keeps, whose change is whose for undo, and how a
window's change made on another machine is named. Runs in the worker process.

An actor is `{source, credential, label}` plus, when known, `person` (Settings → General)
and, in a studio library, `machine` (the Serpent that made it). On a studio library undo is
per caller: the same person at the same client (that machine's window, or one AI client
there). The window's label is "You"; read on another machine it is the person's name."""

from __future__ import annotations

import json
from typing import Any

from library.protocol import CallMeta

UI_LABEL = "You"  # the window's own label (`serpent_tk.automation.caller.UI_LABEL`)

Caller = tuple[str | None, str | None, str | None, str | None]


def actor_of(meta: CallMeta, machine: str | None) -> dict[str, Any]:
    """The actor a change by `meta`'s caller keeps (`machine`: a studio library's)."""
    actor: dict[str, Any] = {"source": meta.source, "credential": meta.credential,
                             "label": meta.label}
    if meta.person:
        actor["person"] = meta.person
    if machine:
        actor["machine"] = machine
    return actor


def caller(actor: dict[str, Any]) -> Caller:
    """Whose change it is, for undo: the person, the machine, the client."""
    return (actor.get("person"), actor.get("machine"), actor.get("source"),
            actor.get("credential"))


def caller_of(actor_json: str) -> Caller:
    return caller(json.loads(actor_json))


def elsewhere(actor: dict[str, Any]) -> str:
    """The label another machine shows: a window's change is its person's (or machine's)."""
    label = str(actor.get("label", ""))
    if actor.get("source") == "ui" and label == UI_LABEL and actor.get("machine"):
        return str(actor.get("person") or actor["machine"])
    return label


def seen_from(actor: dict[str, Any], machine: str | None) -> dict[str, Any]:
    """`actor` as this machine shows it: "You" only for this machine's own window."""
    if actor.get("machine") in (None, machine):
        return actor
    return {**actor, "label": elsewhere(actor)}
