"""The gateway's words said in the window's language: what a change did ("tagged 3 assets
with “sky”"), the toasts it raises, who did it ("Cursor via MCP"), a history step.

Thread-safe (pure functions of the events). The gateway keeps English for MCP clients,
models and the log, and hands the window the same words as a template with its values
(`automation.events.Said`); the template is a msgid of the window's catalogue (the catalogue
tools take every command's words from the registry). A template the catalogue does not
know (a plugin's own words) is said as the gateway said it.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from typing import Any

from serpent_tk.automation.effects import fill
from serpent_tk.automation.events import Said
from serpent_tk.paths import DEFAULT_LIBRARY_NAME
from serpent_tk.ui.language import formats, translate
from serpent_tk.ui.language.translate import N_, _, ngettext, pgettext

# Translators: the name of the library Serpent makes on its first start
MY_LIBRARY = N_("My Library")      # `paths.DEFAULT_LIBRARY_NAME`, said in the window's words
UI_LABEL = "You"                 # the person at the window (`Caller.ui()`)
VIA_MCP = " via MCP"             # i18n: not words ("Cursor via MCP": `Caller.mcp()`)
COMMAND_LINE = "Command line"    # i18n: not words (`Caller.cli()`'s label, compared)
PLUGIN_PREFIX = "plugin:"        # `Caller.plugin()`
# fields whose words are the library's own English (a history entry's summary): another
# language says the fallback instead
ENGLISH_ONLY = frozenset({"entry"})


def actor_name(label: str) -> str:
    """Who did it, in the window's language: "You" → 你, "Cursor via MCP" → Cursor（MCP）."""
    if label == UI_LABEL:
        return _("You")
    if label == COMMAND_LINE:
        return _("Command line")
    if label.endswith(VIA_MCP):
        return _("{client} via MCP").format(client=label.removesuffix(VIA_MCP))
    if label.startswith(PLUGIN_PREFIX):
        return _("the plugin {name}").format(name=label.removeprefix(PLUGIN_PREFIX))
    return label


def listed(items: list[Any]) -> str:
    """Items in a row: "sky, sea, sun" (顿号 in Chinese)."""
    return pgettext("list separator", ", ").join(str(item) for item in items)


def assets(n: int) -> str:
    return ngettext("{n} asset", "{n} assets", n).format(n=formats.number(n))


def files(n: int) -> str:
    return ngettext("{n} file", "{n} files", n).format(n=formats.number(n))


COUNTED = {"assets": assets, "files": files}


def say(said: Said) -> str:
    """`said` in the window's language: its template translated and filled; its fallback
    when a value is missing (or in another language, English only); "changed the library"
    when neither fits."""
    english = translate.current() == translate.ENGLISH
    for template in (said.template, said.fallback):
        if not template or (not english and _names(template) & ENGLISH_ONLY):
            continue
        text = fill(_(template), _values(said.values))
        if text is not None:
            return text
    return _("changed the library")


def _names(template: str) -> set[str]:
    return {re.split(r"[.\[]", name)[0] for _text, name, _spec, _conv
            in string.Formatter().parse(template) if name}


def _values(values: Mapping[str, Any]) -> dict[str, Any]:
    shown: dict[str, Any] = {}
    for key, value in values.items():
        if key in COUNTED and isinstance(value, int):
            shown[key] = COUNTED[key](value) if value or key != "assets" else ""
        elif isinstance(value, Said):
            shown[key] = say(value)
        elif key == "actor" and isinstance(value, str):
            shown[key] = actor_name(value)
        elif isinstance(value, list):
            shown[key] = listed(value)
        else:
            shown[key] = value
    return shown


def change(event: Any) -> str:
    """What a `ChangeMade` did, in the window's language."""
    said = getattr(event, "said", None)
    return say(said) if isinstance(said, Said) else _(str(event.text))


def toast(event: Any) -> str:
    """A gateway `Toast`'s words in the window's language (an AI client's own `ui.notify`
    text stays as the client wrote it)."""
    said = getattr(event, "said", None)
    return say(said) if isinstance(said, Said) else str(event.text)


def history_step(entry: Mapping[str, Any], spec: Any) -> str:
    """A history entry (undone or redone) in words: its summary is the library's English;
    another language names what its command does ("tagged assets")."""
    summary = str(entry.get("summary") or "")
    if translate.current() == translate.ENGLISH and summary:
        return summary
    words = getattr(spec, "words", None)
    fallback = getattr(words, "fallback", "") or getattr(words, "done", "")
    if fallback and "{" not in fallback:
        return _(fallback)
    return _("the last change")


def library_name(name: str) -> str:
    """A library's name as shown: the first-run library's default name in the window's
    language ("My Library" → 我的资料库); any other name as it is."""
    return _(MY_LIBRARY) if name == DEFAULT_LIBRARY_NAME else name
