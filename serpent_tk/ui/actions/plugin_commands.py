"""Plugin commands in the window: the Plugins submenu's entries, and running one.

Tk thread only. The entries are every `plugin.<id>.<verb>` the registry holds right now (the
commands of enabled, running plugins, whatever the MCP exposure switch says: that switch is
for AI clients), named by their titles. Running one names its targets explicitly, as every
plugin call must: the selected assets (`assetIds`), or the folder or collection the sidebar
shows (`folderIds` / `collectionIds`) for a command that takes those, and the library on
show (`libraryId`). Its other simple arguments are asked in a `PluginDialog` built from its
input schema; it runs through the gateway as the person (`Commands`), so checks, undo,
toasts and live updates are those of any command, and a dangerous one asks for its
two-step confirmation like the window's own dangerous commands.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from library.errors import ErrorCode
from serpent_tk.automation.events import PluginsChanged
from serpent_tk.automation.registry import CommandSpec
from serpent_tk.ui.actions.plugin_dialog import PluginDialog, Values
from serpent_tk.ui.actions.plugin_fields import (
    PREVIEW_KEY,
    TARGET_KEYS,
    FieldInput,
    Fields,
    fields_of,
)
from serpent_tk.ui.language import humanize
from serpent_tk.ui.language.translate import N_, _, known, ngettext
from serpent_tk.ui.menus.action_table import CascadeEntry, Target
from serpent_tk.ui.shell.commands import Commands, Reply, describe_error
from serpent_tk.ui.shell.dialogs import ConfirmDialog
from serpent_tk.ui.shell.theme import Theme

GONE = N_("The plugin of this command was turned off (Settings → Plugins), so it cannot "
          "run.")


def plugin_specs(commands: Commands) -> list[CommandSpec]:
    """Every plugin command the registry holds now, by title. Thread-safe."""
    specs = [s for s in commands.gateway.registry.commands.values() if s.plugin_id]
    return sorted(specs, key=lambda s: (s.title.casefold(), s.name))


def targets_for(spec: CommandSpec, target: Target) -> dict[str, list[str]] | None:
    """The targets a run of `spec` names for `target`: the selected assets, else the folder
    or collection on show; None when it has none to act on."""
    taken = set(spec.input_schema().get("properties", {})) & set(TARGET_KEYS)
    if "assetIds" in taken and target.keys and not target.in_trash:
        return {"assetIds": list(target.keys)}
    scope = target.scope
    if scope is None or not scope.target:
        return None
    if "folderIds" in taken and scope.kind == "folder":
        return {"folderIds": [scope.target]}
    if "collectionIds" in taken and scope.kind in ("collection", "smart"):
        return {"collectionIds": [scope.target]}
    return None


def describe_targets(targets: dict[str, list[str]], target: Target, library: str) -> str:
    """"On 3 selected assets in “Refs”." / "On the folder “Skies” in “Refs”."""
    if "assetIds" in targets:
        n = len(targets["assetIds"])
        said = ngettext("On {n} selected asset in “{library}”.",
                        "On {n} selected assets in “{library}”.", n) if library else \
            ngettext("On {n} selected asset.", "On {n} selected assets.", n)
        return said.format(n=humanize.number(n), library=library)
    label = target.scope.name if target.scope is not None else ""
    if "folderIds" in targets:
        said = _("On the folder “{name}” in “{library}”.") if library \
            else _("On the folder “{name}”.")
    else:
        said = _("On the collection “{name}” in “{library}”.") if library \
            else _("On the collection “{name}”.")
    return said.format(name=label, library=library)


def preview_lines(result: dict[str, Any]) -> list[str]:
    """What a dry run answered, a line each: "old → new" for renamed items."""
    items = result.get("items")
    if isinstance(items, list):
        lines = []
        for item in items:
            if isinstance(item, dict) and "oldName" in item and "newName" in item:
                same = item["oldName"] == item["newName"]
                lines.append(f"{item['oldName']}  →  {item['newName']}"
                             + (_("  (unchanged)") if same else ""))
            else:
                lines.append(str(item))
        return lines
    return [f"{key}: {value}" for key, value in result.items() if key != PREVIEW_KEY]


def plugin_error(reply: Reply) -> str:
    """What a person reads when a plugin command failed: the plugin's (or the check's) own
    words — a plugin writes its refusals for people, and a veto of a command it called
    reaches the window as that command's error — else the window's usual sentence."""
    if reply.message and reply.code != ErrorCode.VERSION_CONFLICT:
        return reply.message
    return describe_error(reply)


class PluginCommands:
    """The Plugins submenu and the runs it starts."""

    def __init__(self, commands: Commands, theme: Theme, parent: Any,
                 library: Callable[[], dict[str, Any] | None],
                 toast: Callable[..., None],
                 undo_change: Callable[[int | None], None]) -> None:
        self.commands = commands
        self.theme = theme
        self.parent = parent
        self.library = library
        self.toast = toast
        self.undo_change = undo_change
        self.dialog: PluginDialog | None = None
        self.confirm: ConfirmDialog | None = None

    # the submenu -------------------------------------------------------------------------
    def entries(self, target: Target) -> list[CascadeEntry]:
        """One entry per plugin command; greyed out (left out of right-click menus) when
        what is selected gives it nothing to act on."""
        found: list[CascadeEntry] = []
        for spec in plugin_specs(self.commands):
            asks = self._asks(spec)
            label = known(spec.title) + ("…" if asks else "")
            found.append((label, self._starter(spec.name, target),
                          targets_for(spec, target) is not None))
        return found

    def _starter(self, name: str, target: Target) -> Callable[[], None]:
        return lambda: self.start(name, target)

    def _asks(self, spec: CommandSpec) -> bool:
        fields = fields_of(spec.input_schema())
        return bool(fields.fields or fields.previewable or spec.dangerous)

    # running -----------------------------------------------------------------------------
    def start(self, name: str, target: Target) -> None:
        """The entry `name` was chosen for `target`: ask for its arguments, or run it."""
        spec = self.commands.spec(name)
        ref = self.library()
        if spec is None:
            self.toast(_(GONE), "warning")
            return
        if ref is None:
            self.toast(_("Open a library first."), "warning")
            return
        targets = targets_for(spec, target)
        if targets is None:
            self.toast(_("Select what “{command}” should work on first.").format(
                command=known(spec.title)), "info")
            return
        base = {"libraryId": ref["libraryId"], **targets}
        fields = fields_of(spec.input_schema())
        if fields.unsupported:
            self.toast(_("“{command}” needs {fields}, which the window cannot ask for.").format(
                command=known(spec.title), fields=humanize.listed(list(fields.unsupported))),
                "warning")
            return
        if not self._asks(spec):
            self._run(spec, base, {})
            return
        self._open_dialog(spec, base, fields, describe_targets(targets, target,
                                                               str(ref.get("name", ""))))

    def _open_dialog(self, spec: CommandSpec, base: Values, fields: Fields, aim: str) -> None:
        if self.dialog is not None and not self.dialog.closed:
            self.dialog.close()
        previewable = fields.previewable or (spec.dangerous and spec.plan is not None)
        dialog = self.dialog = PluginDialog(
            self.parent, self.theme, title=known(spec.title),
            summary=_("{sentence}.").format(sentence=known(spec.one_line)), aim=aim,
            fields=fields,
            danger=spec.dangerous, run_label=_("Continue…") if spec.dangerous else _("Run"),
            on_run=lambda values: self._run(spec, base, values),
            on_preview=(lambda values: self._preview(spec, base, values)) if previewable
            else None)
        self._offer_choices(dialog, base["libraryId"])
        unsubscribe = self.commands.bus.subscribe(
            PluginsChanged, lambda _e: self._still_there(dialog, spec.name))
        dialog.bind("<Destroy>", lambda e: unsubscribe() if e.widget is dialog else None,
                    add="+")

    def _still_there(self, dialog: PluginDialog, name: str) -> None:
        if self.commands.spec(name) is None:
            dialog.gone(GONE)

    def _offer_choices(self, dialog: PluginDialog, library_id: str) -> None:
        """Fill the folder and collection choosers from the library."""
        folders = [i for i in dialog.inputs if i.spec.kind == "folder"]
        if folders:
            self.commands.call("folder.list", {"libraryId": library_id},
                               _offering(folders))
        collections = [i for i in dialog.inputs if i.spec.kind == "collection"]
        if collections:
            self.commands.call("collection.list", {"libraryId": library_id},
                               _offering(collections))

    def _preview(self, spec: CommandSpec, base: Values, values: Values) -> None:
        dialog = self.dialog
        dry = fields_of(spec.input_schema()).previewable

        def answered(reply: Reply) -> None:
            if dialog is None or dialog.closed:
                return
            if reply.ok:
                dialog.show_preview(preview_lines(reply.result))
            elif reply.needs_confirmation:      # a dangerous command's risk report
                report = reply.risk_report
                names = [str(t.get("name") or t.get("id")) for t in report.get("targets", [])]
                dialog.show_preview([str(report.get("summary") or ""), *names])
            else:
                dialog.show_error(plugin_error(reply))

        arguments = {**base, **values, **({PREVIEW_KEY: True} if dry else {})}
        self.commands.call(spec.name, arguments, answered)

    def _run(self, spec: CommandSpec, base: Values, values: Values) -> None:
        arguments = {**base, **values}
        dialog = self.dialog if self.dialog is not None and not self.dialog.closed else None

        def answered(reply: Reply) -> None:
            if reply.needs_confirmation:
                if dialog is not None:
                    dialog.close()
                self._confirm(spec, arguments, reply)
            elif reply.ok:
                if dialog is not None:
                    dialog.close()
                self._done(spec, arguments, reply)
            elif dialog is not None and not dialog.closed:
                dialog.show_error(plugin_error(reply))
            else:
                self.toast(_("Could not run “{command}”: {reason}").format(
                    command=known(spec.title), reason=plugin_error(reply)), "error")

        self.commands.call(spec.name, arguments, answered)

    def _confirm(self, spec: CommandSpec, arguments: Values, first: Reply) -> None:
        """A dangerous command's first answer: its risk report in red; only a confirmed,
        second call with the challenge runs it."""
        report = first.risk_report
        challenge = first.challenge["id"] if first.challenge else None

        def second(reply: Reply) -> None:
            if reply.ok:
                self._done(spec, arguments, reply)
            else:
                self.toast(_("Could not run “{command}”: {reason}").format(
                    command=known(spec.title), reason=plugin_error(reply)), "error")

        def confirmed() -> None:
            self.commands.call(spec.name, {**arguments, "confirmChallenge": challenge}, second)

        self.confirm = ConfirmDialog(
            self.parent, self.theme, title=known(spec.title), danger=True,
            heading=_("{action}?").format(action=known(spec.title)),
            text=str(report.get("summary") or _("This cannot be undone.")),
            confirm_label=known(spec.title),
            on_confirm=confirmed)

    def _done(self, spec: CommandSpec, arguments: Values, reply: Reply) -> None:
        assets = arguments.get("assetIds")
        title = known(spec.title)
        said = _("{command}: done on {assets}.").format(
            command=title, assets=humanize.assets(len(assets))) if isinstance(assets, list) \
            else _("{command}: done.").format(command=title)
        sequence = reply.change_sequence
        action = (_("Undo"), lambda: self.undo_change(sequence)) if spec.writes and \
            sequence is not None and self.commands.available("history.undo") else None
        self.toast(said, "success", key=f"plugin:{spec.name}", action=action)


def _offering(inputs: list[FieldInput]) -> Callable[[Reply], None]:
    """Put a list answer's items (by name) into these choosers."""
    def listed(reply: Reply) -> None:
        items = reply.result.get("items", []) if reply.ok else []
        choices = sorted(((str(i["id"]), str(i["name"])) for i in items),
                         key=lambda c: c[1].casefold())
        for field in inputs:
            field.offer(choices)
    return listed
