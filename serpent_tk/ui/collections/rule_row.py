"""One row of the smart-collection editor: field ▾ · operator ▾ · value · ✕, with its error
underneath. Tk thread only.

The fields and operators are the library's (`RuleField`, `RuleOp` in
`library/schemas/collections.py`), in words a person reads ("Date added" "is in the last"
7 "days"). "Tagging has no tags / has tags" stands for the `untagged` field (is true / is
false). The row answers `rule()` with what the library wants and shows an error it is given.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk
from typing import Any, get_args

from library.schemas.collections import RuleField, RuleOp
from serpent_tk.ui.browser.color_filter import DEFAULT_SHARE, DEFAULT_TOLERANCE, tolerance_name
from serpent_tk.ui.collections.rule_values import (
    ColourValue,
    DateValue,
    DaysValue,
    ExtensionValue,
    FolderValue,
    KindValue,
    NoValue,
    NumberValue,
    RatingValue,
    RatioValue,
    RuleContext,
    ShapeValue,
    SizeValue,
    TagValue,
    TextValue,
    ValueField,
)
from serpent_tk.ui.language import humanize
from serpent_tk.ui.language.asset_words import kind_word, shape_word
from serpent_tk.ui.language.translate import N_, _, ngettext
from serpent_tk.ui.shell.theme import Theme

TEXT_OPS = {"is": N_("is"), "is-not": N_("is not"), "contains": N_("contains"),
            "not-contains": N_("does not contain")}
CHOICE_OPS = {"is": N_("is"), "is-not": N_("is not")}
NUMBER_OPS = {"is": N_("is"), "is-not": N_("is not"), "gte": N_("is at least"),
              "lte": N_("is at most")}
DATE_OPS = {"before": N_("is before"), "after": N_("is after"),
            "in-last-days": N_("is in the last")}
# untagged is true / false
UNTAGGED_OPS = {"none": N_("has no tags"), "some": N_("has tags")}

# field -> (label, operators with their words), in the order the menu offers them (the words
# are msgids: `_()` where shown)
FIELDS: dict[str, tuple[str, dict[str, str]]] = {
    "tag": (N_("Tag"), TEXT_OPS),
    "name": (N_("Name"), TEXT_OPS),
    "rating": (N_("Rating"), NUMBER_OPS),
    "kind": (N_("Kind"), CHOICE_OPS),
    "ext": (N_("File extension"), CHOICE_OPS),
    "folder": (N_("Folder"), {**CHOICE_OPS, "within": N_("is in or under")}),
    "added-at": (N_("Date added"), DATE_OPS),
    "width": (N_("Width"), NUMBER_OPS),
    "height": (N_("Height"), NUMBER_OPS),
    "size": (N_("File size"), NUMBER_OPS),
    "notes": (N_("Notes"), TEXT_OPS),
    "source-url": (N_("Source URL"), TEXT_OPS),
    "untagged": (N_("Tagging"), UNTAGGED_OPS),
    "taken-at": (N_("Date taken"), DATE_OPS),
    "camera": (N_("Camera"), TEXT_OPS),
    "lens": (N_("Lens"), TEXT_OPS),
    "orientation": (N_("Shape"), CHOICE_OPS),
    "aspect-ratio": (N_("Aspect ratio"), NUMBER_OPS),
    "color": (N_("Colour"), {"is": N_("has"), "is-not": N_("does not have")}),
    "found-text": (N_("Text in the picture"), TEXT_OPS),
    "duration": (N_("Duration"), NUMBER_OPS),
    "pages": (N_("Pages"), NUMBER_OPS),
}
LIBRARY_FIELDS = frozenset(get_args(RuleField))     # tests hold FIELDS to these
LIBRARY_OPS = frozenset(get_args(RuleOp))
FIELD_ORDER = list(FIELDS)
DEFAULT_RULE = {"field": "tag", "op": "is", "value": ""}


def value_field(master: tk.Misc, theme: Theme, context: RuleContext, field: str,
                op: str) -> ValueField:
    """The value widget a field (and for dates, the operator) needs."""
    if field == "tag":
        return TagValue(master, theme, context)
    if field in ("name", "notes", "source-url", "camera", "lens", "found-text"):
        return TextValue(master, theme)
    if field == "orientation":
        return ShapeValue(master, theme)
    if field == "aspect-ratio":
        return RatioValue(master, theme)
    if field == "color":
        return ColourValue(master, theme)
    if field == "ext":
        return ExtensionValue(master, theme)
    if field == "kind":
        return KindValue(master, theme)
    if field == "rating":
        return RatingValue(master, theme)
    if field in ("width", "height"):
        return NumberValue(master, theme, "pixels", initial=1000)
    if field == "size":
        return SizeValue(master, theme)
    if field == "duration":
        return NumberValue(master, theme, _("seconds"), initial=60)
    if field == "pages":
        return NumberValue(master, theme, _("pages"), initial=10)
    if field in ("added-at", "taken-at"):
        return DaysValue(master, theme) if op == "in-last-days" else DateValue(master, theme)
    if field == "folder":
        return FolderValue(master, theme, context)
    return NoValue(master, theme)


class RuleRow(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, context: RuleContext,
                 rule: dict[str, Any] | None = None) -> None:
        super().__init__(master)
        self.theme = theme
        self.context = context
        self.on_change: Callable[[], None] = lambda: None
        self.on_remove: Callable[[RuleRow], None] = lambda row: None
        self.touched = False           # edited since it was added (its gaps may show red)
        px = theme.px
        self.field = "tag"
        self.op = "is"
        self.field_box = ttk.Combobox(self, state="readonly", width=13,
                                      values=[_(FIELDS[f][0]) for f in FIELD_ORDER])
        self.field_box.grid(row=0, column=0, sticky="w")
        self.op_box = ttk.Combobox(self, state="readonly", width=15)
        self.op_box.grid(row=0, column=1, sticky="w", padx=(px(6), 0))
        self.value_holder = ttk.Frame(self)
        self.value_holder.grid(row=0, column=2, sticky="ew", padx=(px(6), 0))
        self.remove_button = ttk.Button(self, text="✕", width=3,
                                        command=lambda: self.on_remove(self))
        self.remove_button.grid(row=0, column=3, sticky="e", padx=(px(6), 0))
        self.error = ttk.Label(self, style="Danger.TLabel", anchor="w", justify="left",
                               wraplength=px(430))
        self.columnconfigure(2, weight=1)
        self.value: ValueField = NoValue(self.value_holder, theme)
        self.field_box.bind("<<ComboboxSelected>>", lambda e: self._field_chosen())
        self.op_box.bind("<<ComboboxSelected>>", lambda e: self._op_chosen())
        self.set_rule(rule or DEFAULT_RULE)

    # the rule ---------------------------------------------------------------------------
    def set_rule(self, rule: dict[str, Any]) -> None:
        field = str(rule.get("field", "tag"))
        field = field if field in FIELDS else "tag"
        op = str(rule.get("op", ""))
        value = rule.get("value")
        if field == "untagged":            # "is true" / "is-not false": no tags at all
            op, value = ("none" if (value is not False) != (op == "is-not") else "some"), True
        self._show_field(field, op if op in FIELDS[field][1] else next(iter(FIELDS[field][1])))
        if field != "untagged" and value is not None:
            self.value.set(value)
        self.touched = False           # shown as given, not edited

    def rule(self) -> dict[str, Any]:
        """The rule as the library takes it ({"field", "op", "value"})."""
        if self.field == "untagged":
            return {"field": "untagged", "op": "is", "value": self.op == "none"}
        return {"field": self.field, "op": self.op, "value": self.value.get()}

    def problem(self) -> str | None:
        """A sentence when the value is plainly incomplete (the library checks the rest)."""
        return self.value.problem()

    def show_error(self, text: str | None) -> None:
        if text:
            self.error.configure(text=text)
            self.error.grid(row=1, column=0, columnspan=4, sticky="w",
                            pady=(self.theme.px(2), 0))
        else:
            self.error.configure(text="")
            self.error.grid_remove()

    @property
    def error_text(self) -> str:
        return str(self.error.cget("text")) if self.error.winfo_manager() else ""

    # choosing -----------------------------------------------------------------------------
    def choose(self, field: str, op: str | None = None) -> None:
        """As if the person picked `field` (and `op`) from the menus."""
        self.field_box.current(FIELD_ORDER.index(field))
        self._field_chosen()
        if op is not None:
            self.op_box.current(list(FIELDS[field][1]).index(op))
            self._op_chosen()

    def _field_chosen(self) -> None:
        field = FIELD_ORDER[self.field_box.current()]
        if field != self.field:
            self._show_field(field, next(iter(FIELDS[field][1])))
            self.touched = True
            self.on_change()

    def _op_chosen(self) -> None:
        op = list(FIELDS[self.field][1])[self.op_box.current()]
        if op == self.op:
            return
        dates_to_days = self.field in ("added-at", "taken-at") and "in-last-days" in (op,
                                                                                       self.op)
        self.op = op
        if dates_to_days:
            self._new_value()
        self.touched = True
        self.on_change()

    def _show_field(self, field: str, op: str) -> None:
        self.field, self.op = field, op
        self.field_box.current(FIELD_ORDER.index(field))
        ops = FIELDS[field][1]
        self.op_box.configure(values=[_(words) for words in ops.values()])
        self.op_box.current(list(ops).index(op))
        self._new_value()

    def _new_value(self) -> None:
        self.value.destroy()
        self.value = value_field(self.value_holder, self.theme, self.context, self.field,
                                 self.op)
        self.value.pack(fill="x", expand=True)
        self.value.on_change = self.on_change_relay

    def on_change_relay(self) -> None:
        self.touched = True
        self.on_change()


def colour_words(value: dict[str, Any]) -> str:
    """A colour rule's value: "#1e88e5 (similar, covering at least 30 %)"."""
    colour = str(value.get("color", ""))
    share = value.get("minRatio")
    share = share if isinstance(share, int | float) else DEFAULT_SHARE
    tolerance = value.get("tolerance")
    tolerance = tolerance if isinstance(tolerance, int | float) else DEFAULT_TOLERANCE
    return _("{color} ({closeness}, covering at least {percent} %)").format(
        color=colour, closeness=_(tolerance_name(tolerance)).lower(),
        percent=round(share * 100))


def describe_value(field: str, op: str, value: Any) -> str:
    """A rule's value in words ("3 stars", "5.0 MB", "png or jpg", "the last 7 days")."""
    values = value if isinstance(value, list) else [value]
    if field == "rating":
        return _("no stars") if value == 0 else ngettext("{n} star", "{n} stars",
                                                         int(value)).format(n=int(value))
    if field == "size" and isinstance(value, int):
        return humanize.size(value)
    if field in ("width", "height"):
        return _("{n} px").format(n=humanize.number(value)) if isinstance(value, int) \
            else str(value)
    if field in ("added-at", "taken-at") and op == "in-last-days":
        return ngettext("{n} day", "{n} days", int(value)).format(n=int(value))
    if field == "folder":
        return _("a chosen folder")
    if field == "kind":
        return _(" or ").join(kind_word(str(v)) for v in values)
    if field == "orientation":
        return _(" or ").join(shape_word(str(v)) for v in values)
    if field == "ext":
        return _(" or ").join(str(v) for v in values)
    if field == "color" and isinstance(value, dict):
        return colour_words(value)
    return _("“{text}”").format(text=value) if isinstance(value, str) else str(value)


def describe_rules(ruleset: dict[str, Any] | None) -> str:
    """'Tag is “sky” and Rating is at least 3 stars' (what a smart collection picks)."""
    rules = list((ruleset or {}).get("rules") or [])
    parts = []
    for rule in rules:
        field, op, value = rule.get("field"), rule.get("op"), rule.get("value")
        if field not in FIELDS:
            continue
        label, ops = FIELDS[field]
        if field == "untagged":
            untagged = (value is not False) != (op == "is-not")
            parts.append(_("Has no tags") if untagged else _("Has tags"))
            continue
        words = _(ops[op]) if op in ops else str(op)
        parts.append(_("{field} {op} {value}").format(
            field=_(label), op=words, value=describe_value(field, op, value)))
    joiner = _(" or ") if (ruleset or {}).get("match") == "any" else _(" and ")
    return joiner.join(parts)
