"""The catalogue tools (Babel): find every word the window shows, bring each language's
`.po` up to date with them, compile the `.po` files into the `.mo` files the window reads.
Runs on the command line (a source checkout, the install, the packaged app's build), never
in the window.

    python -m serpent_tk.ui.language.catalogues update    # new words into every .po
    python -m serpent_tk.ui.language.catalogues compile   # every .po -> its .mo
    python -m serpent_tk.ui.language.catalogues check     # untranslated words, if any

The words come from the window's code (`_`, `N_`, `ngettext`, `pgettext`), from the
gateway's toasts (`Said(...)` in `automation` and `plugins`) and from the registry (every
command's `Words`: what the window says a change did). The `.po` files are kept without
line numbers, so moving code does not change them. The `.mo` files are built, never
committed.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from library.disk.atomicfile import atomic_write_bytes
from serpent_tk.ui.language.translate import DOMAIN, ENGLISH, LANGUAGES, locale_dir

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

PACKAGE = Path(__file__).resolve().parents[2]          # serpent_tk/
ROOT = PACKAGE.parent
WINDOW_KEYWORDS: dict[str, Any] = {"_": None, "N_": None, "ngettext": (1, 2),
                                   "pgettext": ((1, "c"), 2)}
GATEWAY_KEYWORDS: dict[str, Any] = {"Said": (1,)}
SOURCES = ((PACKAGE / "ui", WINDOW_KEYWORDS), (PACKAGE / "automation", GATEWAY_KEYWORDS),
           (PACKAGE / "plugins", GATEWAY_KEYWORDS))
COMMENT_TAGS = ("Translators:",)
WIDTH = 100
# the catalogue file's own header (for translators): i18n: not words
HEADER = ("# The window's words in {language}.\n"
          "# Made by `python -m serpent_tk.ui.language.catalogues update` (new words come in\n"
          "# untranslated); translated by hand; compiled to serpent.mo by the install.\n"
          "#")


def po_path(language: str) -> Path:
    return locale_dir() / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def languages() -> list[str]:
    """Every language with a catalogue (English is the msgids themselves)."""
    return [code for code in LANGUAGES if code != ENGLISH]


def extract() -> Catalog:
    """Every word the window shows, as a template catalogue (no translations)."""
    from babel.messages.catalog import Catalog

    template = Catalog(domain=DOMAIN, project="Serpent", charset="utf-8")
    for message, where, comments, context in _found():
        # no line numbers (None): the catalogue stays the same while code moves about
        template.add(message, None, [(where, None)],  # type: ignore[list-item]
                     auto_comments=comments, context=context)
    return template


def _found() -> Iterator[tuple[Any, str, list[str], str | None]]:
    from babel.messages.extract import extract_from_dir

    for folder, keywords in SOURCES:
        for filename, _line, message, comments, context in extract_from_dir(
                str(folder), method_map=[("**.py", "python")], keywords=keywords,
                comment_tags=COMMENT_TAGS, strip_comment_tags=True):
            where = Path(folder, filename).relative_to(ROOT).as_posix()
            yield message, where, list(comments), context
    for name, template in registry_words():
        yield template, "serpent_tk/automation/registry.py", [
            f"What the window says the command {name} did (or is doing)."], None  # i18n: not words
    for plugin_file, text in plugin_words():
        # a comment for translators: i18n: not words
        yield text, plugin_file, ["A shipped plugin's words (Settings → Plugins, its "
                                    "menu entry and dialog)."], None


def registry_words() -> list[tuple[str, str]]:
    """(command, words) of every command's `Words` in the registry."""
    from serpent_tk.automation.commands import build_registry

    found = []
    for name, spec in sorted(build_registry().commands.items()):
        for template in (spec.words.done, spec.words.fallback, spec.words.doing):
            if template:
                found.append((name, template))
    return found


def plugin_words() -> list[tuple[str, str]]:
    """(its manifest, words) of the plugins shipped with Serpent: name and description,
    each command's title and first sentence, its fields' labels, hints and choices, as the
    window shows them (`ui.actions.plugin_fields`)."""
    import importlib
    import tomllib

    from serpent_tk.automation.registry import SENTENCE_END
    from serpent_tk.ui.actions.plugin_fields import fields_of

    found: list[tuple[str, str]] = []
    for manifest in sorted((PACKAGE / "plugins" / "builtin").glob("*/plugin.toml")):
        where = manifest.relative_to(ROOT).as_posix()
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
        found += [(where, str(data[key])) for key in ("name", "description") if data.get(key)]
        plugin = importlib.import_module(str(data["module"])).plugin
        for command in plugin.commands.values():
            found += [(where, text) for text in (
                command.title, SENTENCE_END.split(command.summary, maxsplit=1)[0].rstrip("."))
                if text]
            for spec in fields_of(command.input.model_json_schema(by_alias=True)).fields:
                found += [(where, text) for text in (spec.label, spec.description, *spec.choices)
                          if text]
    return found


def read(language: str) -> Catalog:
    from babel.messages.pofile import read_po

    with po_path(language).open("rb") as stream:
        return read_po(stream, locale=language, domain=DOMAIN)


def write(language: str, catalogue: Catalog) -> None:
    from babel.messages.pofile import write_po

    catalogue.fuzzy = False                        # the header: translators keep it
    catalogue.project, catalogue.version = "Serpent", ""
    catalogue.header_comment = HEADER.format(language=LANGUAGES.get(language, language))
    catalogue.last_translator = "Serpent engineers"  # i18n: not words
    catalogue.language_team = f"{LANGUAGES.get(language, language)} <none>"
    path = po_path(language)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as stream:
        write_po(stream, catalogue, width=WIDTH, include_lineno=False, sort_output=False,
                 ignore_obsolete=True)


def update() -> dict[str, int]:
    """Merge the words found now into every language's `.po`: new ones come untranslated,
    gone ones are dropped. Returns how many are untranslated per language."""
    from babel.messages.catalog import Catalog

    template = extract()
    untranslated = {}
    for language in languages():
        path = po_path(language)
        catalogue = read(language) if path.exists() else Catalog(
            locale=language, domain=DOMAIN, project="Serpent", charset="utf-8")
        created = catalogue.creation_date           # no churn: only words change the file
        catalogue.update(template, no_fuzzy_matching=True)
        catalogue.creation_date = created
        write(language, catalogue)
        untranslated[language] = len(missing(catalogue))
    return untranslated


def missing(catalogue: Catalog) -> list[str]:
    """The msgids of `catalogue` without a (complete, not fuzzy) translation."""
    found = []
    for message in catalogue:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple | list) \
            else (message.string,)
        if message.fuzzy or not all(strings):
            found.append(message.id if isinstance(message.id, str) else message.id[0])
    return found


def compile_all(folder: Path | None = None) -> list[Path]:
    """Compile every `.po` under `folder` (the catalogues) into a `.mo` beside it."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    made = []
    for source in sorted((folder or locale_dir()).glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        with source.open("rb") as stream:
            catalogue = read_po(stream)
        target = source.with_suffix(".mo")
        compiled = io.BytesIO()
        write_mo(compiled, catalogue)
        atomic_write_bytes(target, compiled.getvalue(), mode=0o644)  # installed, read by all
        made.append(target)
    return made


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    command = args[0] if args else ""
    if command == "update":
        for language, count in update().items():
            print(f"{po_path(language).relative_to(ROOT)}: {count} untranslated")
        return 0
    if command == "compile":
        for made in compile_all():
            print(f"compiled {made.relative_to(ROOT) if made.is_relative_to(ROOT) else made}")
        return 0
    if command == "check":
        template = extract()
        problems = 0
        for language in languages():
            catalogue = read(language)
            absent = [m.id for m in template
                      if m.id and catalogue.get(m.id, context=m.context) is None]
            untranslated = missing(catalogue)
            for msgid in absent + untranslated:
                print(f"{language}: {msgid!r}")
            problems += len(absent) + len(untranslated)
        return 1 if problems else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
