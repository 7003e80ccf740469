"""The docs hold together: every relative link in every tracked `*.md` leads to a file (and a
heading) that exists, every table row has its header's cells, every `*.md` file (and
contracts section) the code and tests cite exists, the error tables list exactly the codes
the code defines, and the README stays short with the two set-up commands in its first
screen. Pure file reading: runs anywhere."""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

from library.errors import ALL_CODES, RETRYABLE

ROOT = Path(__file__).resolve().parent.parent
SKIPPED_DIRS = {".git", ".venv", "node_modules", "dist", "build", ".pytest_cache",
                ".mypy_cache", ".ruff_cache", "__pycache__"}
README_LIMIT = 12 * 1024
FIRST_SCREEN_LINES = 30
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")
CITED_MD = re.compile(r"[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b")
CONTRACTS_SECTION = re.compile(r"docs/contracts\.md §(\d+)")
CODE_SOURCES = ("*.py", "*.toml", "*.spec", "*.sh", "*.cfg", "*.ini", "*.html", "*.js")


def tracked(*patterns: str) -> list[Path]:
    """The repository's files matching `patterns` (tracked, or new and not ignored), or the
    tree's files when git cannot say."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard", "--", *patterns], cwd=ROOT,
                             capture_output=True, check=True, timeout=60).stdout
        return sorted(ROOT / name for name in out.decode().split("\0") if name)
    except (OSError, subprocess.CalledProcessError):
        found = {p for pattern in patterns for p in ROOT.rglob(pattern.split("/")[-1])}
        return sorted(p for p in found
                      if not SKIPPED_DIRS & set(p.relative_to(ROOT).parts))


def markdown_files() -> list[Path]:
    return [p for p in tracked("*.md") if p.is_file()]


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip()).lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in prose_lines(text):
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(page: Path, text: str) -> list[str]:
    """Every relative link of `text` (the content of `page`) that leads nowhere."""
    broken = []
    for line in prose_lines(text):
        for target in LINK.findall(line):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            path_part, _, anchor = target.partition("#")
            if not path_part:
                if anchor not in anchors(text):
                    broken.append(f"{target} (no such heading)")
                continue
            destination = (page.parent / path_part).resolve()
            if not destination.exists():
                broken.append(f"{target} (no such file)")
            elif anchor and destination.suffix == ".md" and anchor not in anchors(
                    destination.read_text(encoding="utf-8")):
                broken.append(f"{target} (no such heading)")
    return broken


@pytest.mark.parametrize("page", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_somewhere(page: Path) -> None:
    broken = broken_links(page, page.read_text(encoding="utf-8"))
    assert not broken, f"{page.relative_to(ROOT)}: broken links: {broken}"


def test_the_link_check_catches_what_it_should(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# Title\n\n## Second part, `code`\n\n## Title\n")
    page = tmp_path / "page.md"
    text = ("[ok](there.md) [ok](there.md#second-part-code) [ok](there.md#title-1)\n"
            "[ok](#here) [ok](https://example.com/x.md)\n\n## Here\n\n"
            "```\n[in a code block](missing.md)\n```\n"
            "[bad](missing.md) [bad](there.md#nowhere) [bad](#not-here)\n")
    assert broken_links(page, text) == ["missing.md (no such file)",
                                        "there.md#nowhere (no such heading)",
                                        "#not-here (no such heading)"]


def ragged_rows(text: str) -> list[str]:
    """Table rows with another number of cells than their table's header (a `|` inside a
    code span splits a cell on GitHub too: write `\\|`)."""
    ragged, header = [], None
    for line in prose_lines(text):
        if not line.startswith("|"):
            header = None
            continue
        cells = len(re.split(r"(?<!\\)\|", line))
        if header is None:
            header = cells
        elif cells != header:
            ragged.append(line[:80])
    return ragged


@pytest.mark.parametrize("page", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_table_row_has_its_header_s_cells(page: Path) -> None:
    ragged = ragged_rows(page.read_text(encoding="utf-8"))
    assert not ragged, f"{page.relative_to(ROOT)}: rows that break their table: {ragged}"


def test_the_table_check_catches_what_it_should() -> None:
    text = ("| a | b |\n|---|---|\n| `x\\|y` | 1 |\n| `start|test` | 2 |\n\n"
            "| one |\n|---|\n| 1 |\n")
    assert ragged_rows(text) == ["| `start|test` | 2 |"]


def cited_markdown() -> list[tuple[str, str]]:
    """(where, what) for every `*.md` file named in the code, tests and build files."""
    cited = []
    for source in tracked(*CODE_SOURCES, ".ci/*"):
        if not source.is_file() or source == Path(__file__).resolve():
            continue  # this file's own examples name files that do not exist on purpose
        text = source.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{source.relative_to(ROOT)}:{number}"
            cited += [(where, name) for name in CITED_MD.findall(line)]
    return cited


def missing_citations(cited: list[tuple[str, str]]) -> list[str]:
    """A path (`docs/mcp.md`) must be a file from the repository's root; a bare name
    (`mcp.md`, as in `ROOT / "docs" / "mcp.md"`) must be the name of one of its pages."""
    names = {p.name for p in markdown_files()}
    return [f"{where}: {name}" for where, name in cited
            if ("/" in name and not _in_repository(name))
            or ("/" not in name and name not in names)]


def _in_repository(name: str) -> bool:
    """A file of the repository itself: `../shared/...` may exist beside one checkout and
    not beside the next."""
    path = (ROOT / name).resolve()
    return path.is_relative_to(ROOT.resolve()) and path.is_file()


def test_every_markdown_file_the_code_cites_exists() -> None:
    cited = cited_markdown()
    assert any(name == "docs/contracts.md" for _, name in cited)
    missing = missing_citations(cited)
    assert not missing, "cited but not in the repository:\n" + "\n".join(missing)


def test_the_citation_check_catches_what_it_should() -> None:
    assert missing_citations([("a", "docs/mcp.md"), ("b", "mcp.md"), ("c", "README.md"),
                              ("d", "docs/CONTRACTS.md"), ("e", "ARCHITECTURE.md"),
                              ("f", "../shared/reference/mcp-clients.md")]) == [
        "d: docs/CONTRACTS.md", "e: ARCHITECTURE.md", "f: ../shared/reference/mcp-clients.md"]


def test_every_contracts_section_the_code_cites_exists() -> None:
    sections = {m.group(1) for m in re.finditer(
        r"^## (\d+)\. ", (ROOT / "docs/contracts.md").read_text(encoding="utf-8"), re.M)}
    cited = [(where, number) for source in tracked(*CODE_SOURCES)
             if source.is_file()
             for where, number in (
                 (f"{source.relative_to(ROOT)}", n) for n in CONTRACTS_SECTION.findall(
                     source.read_text(encoding="utf-8", errors="replace")))]
    assert cited
    missing = [f"{where}: §{number}" for where, number in cited if number not in sections]
    assert not missing, "cited sections that docs/contracts.md lacks:\n" + "\n".join(missing)


def error_table(page: str) -> dict[str, bool]:
    """code → retryable, from the first table of `page` whose header starts `| code |`."""
    text = (ROOT / page).read_text(encoding="utf-8")
    table = text[text.index("| code | when | retryable |"):].split("\n\n", 1)[0]
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        for code in re.findall(r"`([A-Z_]+)`", cells[0]):
            rows[code] = cells[-1] == "yes"
    return rows


@pytest.mark.parametrize("page", ["docs/mcp.md", "docs/contracts.md"])
def test_the_error_tables_are_the_codes_the_code_defines(page: str) -> None:
    rows = error_table(page)
    assert set(rows) == set(ALL_CODES), (
        f"{page}: missing {sorted(set(ALL_CODES) - set(rows))}, "
        f"unknown {sorted(set(rows) - set(ALL_CODES))}")
    assert {code for code, retryable in rows.items() if retryable} == set(RETRYABLE), page


def test_the_readme_is_short_and_starts_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= README_LIMIT
    first_screen = "\n".join(readme.splitlines()[:FIRST_SCREEN_LINES])
    assert "python3 -m serpent_tk.bootstrap start" in first_screen
    assert "python3 -m serpent_tk.bootstrap test" in first_screen
    for page in ("docs/window.md", "docs/mcp.md", "docs/plugins.md", "docs/architecture.md",
                 "docs/contracts.md", "docs/style.md", "CONTRIBUTING.md", "bench/README.md"):
        assert f"]({page})" in readme, f"the README does not link {page}"
