"""The window's catalogues: every word the window shows is in them and translated, their
placeholders match, no word in the window's code escapes a catalogue call (an AST check),
and the gateway's words, numbers and dates come out in the window's language."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from serpent_tk.automation.events import ChangeMade, Said
from serpent_tk.paths import DEFAULT_LIBRARY_NAME
from serpent_tk.ui.language import catalogues, formats, gateway_words, humanize, translate
from tests.ui.language.words_in_code import findings

ROOT = Path(__file__).resolve().parents[3]
PLACEHOLDER = re.compile(r"\{[^{}]*\}")


@pytest.fixture
def chinese() -> object:
    yield translate.use("zh_CN")
    translate.use("en")


@pytest.fixture(scope="module")
def extracted() -> object:
    return catalogues.extract()


@pytest.mark.parametrize("language", catalogues.languages())
def test_every_word_the_window_shows_is_translated(language: str, extracted: object) -> None:
    catalogue = catalogues.read(language)
    absent = [m.id for m in extracted  # type: ignore[attr-defined]
              if m.id and catalogue.get(m.id, context=m.context) is None]
    assert not absent, (f"words not in {language}'s .po (run `python -m "
                        f"serpent_tk.ui.language.catalogues update`): {absent[:10]}")
    assert catalogues.missing(catalogue) == []


@pytest.mark.parametrize("language", catalogues.languages())
def test_the_catalogue_holds_no_word_the_window_no_longer_shows(language: str,
                                                                 extracted: object) -> None:
    stale = [m.id for m in catalogues.read(language)
             if m.id and extracted.get(m.id, context=m.context) is None]  # type: ignore[attr-defined]
    assert not stale, f"stale entries (run the catalogues' update): {stale[:10]}"


@pytest.mark.parametrize("language", catalogues.languages())
def test_placeholders_match(language: str) -> None:
    wrong = []
    for message in catalogues.read(language):
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        wanted = sorted(PLACEHOLDER.findall(ids[-1]))
        for text in strings:
            if sorted(PLACEHOLDER.findall(text)) != wanted:
                wrong.append((ids[0], text))
    assert not wrong, wrong[:10]


def test_no_word_in_the_window_escapes_the_catalogue() -> None:
    """Every literal a person reads in `serpent_tk/ui` goes through `_`, `N_`, `ngettext`,
    `pgettext` or `known` (tests/ui/language/words_in_code.py says what counts)."""
    found = [f for path in sorted((ROOT / "serpent_tk" / "ui").rglob("*.py"))
             for f in findings(path, ROOT)]
    assert not found, "\n".join(f"{f.path}:{f.line}: {f.text!r}" for f in found[:20])


def test_the_check_catches_a_word_outside_the_catalogue(tmp_path: Path) -> None:
    module = tmp_path / "view.py"
    module.write_text('label = ttk.Label(root, text="Import")\n'
                      'toast("Moved 3 assets to the Trash.")\n'
                      'shown = _("Import")\nlog.info("not for people %s", x)\n'
                      'font = ("Segoe UI", 9)  # i18n: not words\n', encoding="utf-8")
    assert sorted(f.text for f in findings(module, tmp_path)) == [
        "Import", "Moved 3 assets to the Trash."]


def test_a_missing_compiled_catalogue_is_compiled_from_its_po(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """A source checkout without the .mo still speaks Chinese (the .po compiled in memory),
    and `compile` writes the .mo the install ships."""
    folder = tmp_path / "serpent_tk" / "locale" / "zh_CN" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    folder.joinpath("serpent.po").write_bytes(catalogues.po_path("zh_CN").read_bytes())
    monkeypatch.setattr(translate, "resource_root", lambda: tmp_path)
    assert translate.load("zh_CN").gettext("All assets") == "全部素材"
    made = catalogues.compile_all(tmp_path / "serpent_tk" / "locale")
    assert [p.name for p in made] == ["serpent.mo"]
    assert translate.load("zh_CN").gettext("Trash") == "回收站"


def test_no_catalogue_leaves_the_window_in_english(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(translate, "resource_root", lambda: tmp_path)
    assert translate.use("zh_CN") == "en"
    assert translate._("All assets") == "All assets"


@pytest.mark.parametrize(("environment", "language"), [
    ({"LANGUAGE": "zh_CN:en"}, "zh_CN"), ({"LANG": "zh_TW.UTF-8"}, "zh_CN"),
    ({"LC_ALL": "de_DE.UTF-8"}, "en"), ({"LANG": "C"}, "en"),
    ({"LANGUAGE": "", "LANG": "en_GB.UTF-8"}, "en")])
def test_the_system_language(environment: dict[str, str], language: str,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert translate.resolve("system") == language


def test_the_gateways_words_in_chinese(chinese: object) -> None:
    """What an AI client did is said in the window's language; MCP keeps the English."""
    said = Said("tagged {assets} with “{tags}”", {"assets": 3, "tags": ["sky", "海"]},
                "tagged assets")
    event = ChangeMade("lib", "asset.tag", "Cursor via MCP", "mcp", 4,
                       "tagged 3 assets with “sky, 海”", True, said=said)
    assert gateway_words.change(event) == "给 3 个素材添加了标签“sky、海”"
    assert gateway_words.actor_name("Cursor via MCP") == "Cursor（通过 MCP）"
    assert gateway_words.actor_name("You") == "你"
    undo = Said("undid “{entry[summary]}”", {"entry": {"summary": "Tagged 3 assets"}},
                "undid a change")
    assert gateway_words.say(undo) == "撤销了一项更改"     # the summary is English only
    lifecycle = Said("{actor} {change}.", {"actor": "Claude via MCP", "change": Said(
        "imported {files} into “{library}”", {"files": 12, "library": "参考"})})
    assert gateway_words.say(lifecycle) == "Claude（通过 MCP）向“参考”导入了 12 个文件。"


def test_the_gateways_words_in_english_are_the_gateways() -> None:
    said = Said("tagged {assets} with “{tags}”", {"assets": 1, "tags": ["sky"]})
    assert gateway_words.say(said) == "tagged 1 asset with “sky”"


def test_the_first_library_is_called_in_the_windows_words(chinese: object) -> None:
    assert gateway_words.MY_LIBRARY == DEFAULT_LIBRARY_NAME
    assert gateway_words.library_name(DEFAULT_LIBRARY_NAME) == "我的资源库"
    assert gateway_words.library_name("Moodboards") == "Moodboards"


def test_numbers_sizes_and_dates_in_the_persons_locale(chinese: object,
                                                      monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    assert humanize.assets(1234) == "1,234 个素材"
    assert formats.size(12_400_000) == "12.4 MB"
    assert formats.day(date(2026, 3, 12)) == "2026年3月12日"
    now = datetime(2026, 3, 12, 12, 0, tzinfo=UTC)
    assert humanize.ago(now - timedelta(minutes=5), now) == "5 分钟前"
    translate.use("en")
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    formats._locale_for.cache_clear()
    try:
        assert formats.number(1234) == "1.234"       # English words, German numbers
        assert formats.size(12_400_000) == "12,4 MB"
        assert humanize.assets(2) == "2 assets"
    finally:
        formats._locale_for.cache_clear()
