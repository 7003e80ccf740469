"""Path rules for every OS, tested here on Linux: names, user paths, collisions, links."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path, PurePosixPath, PureWindowsPath
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from library.errors import PATH_INVALID, LibraryError
from library.pathrules import (
    MAX_NAME_BYTES,
    Flavor,
    casefold_collides,
    is_reserved_windows_name,
    is_within,
    link_kind,
    parse_user_path,
    resolve_within,
    resolves_into,
    safe_disk_name,
    validate_entry_name,
    windows_long_path,
)

# --- names that become disk names --------------------------------------------------------------

GOOD_NAMES = [
    ("My Refs", "My Refs"),
    ("  padded  ", "padded"),                         # a dialog's stray spaces
    ("Cafe\u0301", "Caf\u00e9"),                      # NFD (macOS) -> NFC
    ("concept.art", "concept.art"),
    ("CONSOLE", "CONSOLE"),                           # only the exact device stems are reserved
    ("nullify.txt", "nullify.txt"),
    ("COM10", "COM10"),
    ("LPT0", "LPT0"),
    (".hidden", ".hidden"),
    ("日本語の参考", "日本語の参考"),
    ("emoji 🐍", "emoji 🐍"),
    ("a" * 255, "a" * 255),
    ("[draft] #1 (v2) & more", "[draft] #1 (v2) & more"),
]

BAD_NAMES = [
    ("", "empty"),
    ("   ", "empty"),
    (".", "dot_name"),
    ("..", "dot_name"),
    ("CON", "reserved_name"),
    ("con", "reserved_name"),
    ("PRN", "reserved_name"),
    ("AUX", "reserved_name"),
    ("NUL", "reserved_name"),
    ("nul.txt", "reserved_name"),
    ("Nul.tar.gz", "reserved_name"),
    ("aux .png", "reserved_name"),
    ("CONIN$", "reserved_name"),
    *[(f"COM{d}", "reserved_name") for d in "123456789"],
    *[(f"lpt{d}.log", "reserved_name") for d in "123456789"],
    ("COM¹", "reserved_name"),
    ("LPT³.txt", "reserved_name"),
    ("ends with dot.", "trailing_dot_or_space"),
    ("dots...", "trailing_dot_or_space"),
    ("space then dot .", "trailing_dot_or_space"),
    *[(f"a{c}b", "illegal_character") for c in '<>:"/\\|?*'],
    ("tab\there", "control_character"),
    ("line\nbreak", "control_character"),
    ("nul\x00byte", "control_character"),
    ("bell\x07", "control_character"),
    ("del\x7fete", "control_character"),
    ("a" * 256, "too_long"),
    ("é" * 128, "too_long"),                          # 256 bytes of UTF-8
    ("lone \udc80 surrogate", "not_unicode"),
]


@pytest.mark.parametrize(("name", "expected"), GOOD_NAMES)
def test_good_entry_names_are_accepted_and_normalized(name: str, expected: str) -> None:
    assert validate_entry_name(name) == expected


@pytest.mark.parametrize(("name", "reason"), BAD_NAMES)
def test_bad_entry_names_are_refused_with_a_reason_and_a_message(name: str, reason: str) -> None:
    with pytest.raises(LibraryError) as caught:
        validate_entry_name(name, field="name")
    error = caught.value
    assert error.code == PATH_INVALID
    assert error.details["reason"] == reason
    assert error.details["field"] == "name"
    assert error.message and "Traceback" not in error.message


def test_a_suffix_counts_for_the_length_of_a_library_folder_name() -> None:
    name = "a" * 250
    assert validate_entry_name(name) == name
    with pytest.raises(LibraryError) as caught:
        validate_entry_name(name, suffix=".serpent")
    assert caught.value.details["reason"] == "too_long"
    assert "247" in caught.value.message


def test_a_name_that_is_not_text_is_refused() -> None:
    with pytest.raises(LibraryError) as caught:
        validate_entry_name(42)  # type: ignore[arg-type]
    assert caught.value.code == PATH_INVALID


@pytest.mark.parametrize(("name", "reserved"), [
    ("CON", True), ("con.txt", True), ("Com1.JPG", True), ("lpt9", True), ("NUL ", True),
    ("conin$.x", True), ("CON_", False), ("CONS", False), ("xNUL", False), ("COM0", False),
])
def test_reserved_windows_names(name: str, reserved: bool) -> None:
    assert is_reserved_windows_name(name) is reserved


SAFE_NAMES = [
    ("My Refs", "My Refs"),
    ("CON", "CON_"),
    ("nul.txt", "nul_.txt"),
    ("aux .png", "aux_.png"),
    ('what?: "why" <now>|*', "what__ _why_ _now___"),
    ("a/b\\c", "a_b_c"),
    ("trailing dots...", "trailing dots"),
    ("  spaces  ", "spaces"),
    ("", "untitled"),
    ("...", "untitled"),
    ("tab\tand\nnewline", "tab_and_newline"),
    ("Cafe\u0301", "Caf\u00e9"),
]


@pytest.mark.parametrize(("name", "expected"), SAFE_NAMES)
def test_safe_disk_name_changes_as_little_as_possible(name: str, expected: str) -> None:
    assert safe_disk_name(name) == expected
    assert validate_entry_name(expected) == expected


def test_safe_disk_name_keeps_the_extension_of_an_overlong_name() -> None:
    name = "x" * 300 + ".png"
    safe = safe_disk_name(name)
    assert safe.endswith(".png")
    assert len(safe.encode("utf-8")) == MAX_NAME_BYTES
    multibyte = "日" * 120 + ".jpeg"  # 360 bytes
    cut = safe_disk_name(multibyte)
    assert cut.endswith(".jpeg") and len(cut.encode("utf-8")) <= MAX_NAME_BYTES
    assert validate_entry_name(cut) == cut


def test_safe_disk_name_leaves_room_for_a_suffix() -> None:
    safe = safe_disk_name("L" * 300, suffix=".serpent")
    assert validate_entry_name(safe, suffix=".serpent") == safe


@given(st.text(max_size=400))
def test_safe_disk_name_always_gives_a_valid_name_and_is_idempotent(name: str) -> None:
    safe = safe_disk_name(name)
    assert validate_entry_name(safe) == safe
    assert safe_disk_name(safe) == safe


# --- case-insensitive collisions ---------------------------------------------------------------

@pytest.mark.parametrize(("name", "existing", "clash"), [
    ("refs", ["Refs", "Other"], "Refs"),
    ("REFS", ["refs"], "refs"),
    ("Caf\u00e9", ["Cafe\u0301"], "Cafe\u0301"),       # NFC vs NFD (macOS)
    ("Straße", ["STRASSE"], "STRASSE"),               # casefold is stricter than NTFS: safe side
    ("Refs ", ["refs"], "refs"),                      # what Windows would make of it
    ("Refs.", ["refs"], "refs"),
    ("Refs", ["Refs2", "My Refs"], None),
    ("Refs", [], None),
])
def test_casefold_collisions(name: str, existing: list[str], clash: str | None) -> None:
    assert casefold_collides(name, existing) == clash


# --- user paths, Windows flavor ----------------------------------------------------------------

WINDOWS_GOOD = [
    (r"C:\Users\ana\Pictures\ref.png", r"C:\Users\ana\Pictures\ref.png"),
    ("c:/Users/ana/Pictures/ref.png", r"C:\Users\ana\Pictures\ref.png"),   # forward slashes
    (r"C:\Users\\ana\\\Pictures\\", r"C:\Users\ana\Pictures"),              # doubled separators
    (r"C:\Users\ana\.\Pictures\..\Desktop", r"C:\Users\ana\Desktop"),       # Win32 normalizes
    (r"C:\\", "C:\\"),
    (r'"C:\Users\ana\My Refs.serpent"', r"C:\Users\ana\My Refs.serpent"),   # Copy as path
    (r"  D:\Art  ", r"D:\Art"),
    (r"\\nas\art\refs\a.png", r"\\nas\art\refs\a.png"),                    # UNC
    ("//nas/art/refs", r"\\nas\art\refs"),
    (r"\\nas\art", "\\\\nas\\art\\"),
    (r"\\?\C:\very\long\path.png", r"C:\very\long\path.png"),              # long path prefix
    (r"\\?\UNC\nas\art\x.png", r"\\nas\art\x.png"),
    (r"\\.\C:\Users", r"C:\Users"),
    ("file:///C:/Users/ana/a%20b.png", r"C:\Users\ana\a b.png"),
    ("file://nas/art/a.png", r"\\nas\art\a.png"),
    ("C:\\Users\\ana\\日本語\\🐍.png", r"C:\Users\ana\日本語\🐍.png"),
]

WINDOWS_BAD = [
    ("", "empty"),
    ('""', "empty"),
    ("C:", "drive_relative"),
    (r"C:Users\ana", "drive_relative"),
    (r"\Users\ana", "not_absolute"),
    (r"Users\ana", "not_absolute"),
    (r"\\nas", "unc_incomplete"),
    ("\\\\nas\\", "unc_incomplete"),
    ("\\\\\\share", "unc_incomplete"),
    (r"\\.\PhysicalDrive0", "device_path"),
    (r"\\.\COM1", "device_path"),
    (r"\\?\Volume{26a21bda-a627-11d7-9931-806e6f6e6963}\x", "device_path"),
    (r"\\?\GLOBALROOT\Device\x", "device_path"),
    (r"\\?\C:\a\..\b", "dot_name"),
    ("file:///no/drive", "bad_url"),
    (r"C:\Users\CON\x.png", "reserved_name"),
    (r"C:\Users\nul.txt", "reserved_name"),
    (r"C:\Users\com1", "reserved_name"),
    (r"C:\Users\ana.\x", "trailing_dot_or_space"),
    (r"C:\Users\ana \x", "trailing_dot_or_space"),
    (r"C:\Users\a<b", "illegal_character"),
    (r"C:\Users\a>b", "illegal_character"),
    (r"C:\Users\a|b", "illegal_character"),
    (r"C:\Users\a?b", "illegal_character"),
    (r"C:\Users\a*b", "illegal_character"),
    (r'C:\Users\a"b', "illegal_character"),
    (r"C:\Users\a.png:stream", "illegal_character"),                       # alternate data stream
    ("C:\\Users\\a\x01b", "control_character"),
    ("C:\\Users\\a\x00b", "control_character"),
    ("C:\\" + "a" * 256, "too_long"),
    ("C:\\" + "\\".join(["a" * 200] * 170), "too_long"),                    # > 32767 units
]


@pytest.mark.parametrize(("text", "expected"), WINDOWS_GOOD)
def test_windows_paths_that_parse(text: str, expected: str) -> None:
    path = parse_user_path(text, flavor="windows")
    assert isinstance(path, PureWindowsPath)
    assert str(path) == expected


@pytest.mark.parametrize(("text", "reason"), WINDOWS_BAD)
def test_windows_paths_that_are_refused(text: str, reason: str) -> None:
    with pytest.raises(LibraryError) as caught:
        parse_user_path(text, flavor="windows", field="sourcePaths")
    assert caught.value.code == PATH_INVALID
    assert caught.value.details["reason"] == reason
    assert caught.value.details["field"] == "sourcePaths"


def test_a_colon_in_a_windows_path_is_explained() -> None:
    with pytest.raises(LibraryError) as caught:
        parse_user_path(r"C:\a.png:hidden", flavor="windows")
    assert "drive letter" in caught.value.message


def test_windows_relative_paths_when_allowed() -> None:
    assert str(parse_user_path(r"a\b\..\c", flavor="windows", require_absolute=False)) == r"a\c"
    assert str(parse_user_path(r"..\up", flavor="windows", require_absolute=False)) == r"..\up"


def test_a_windows_component_of_255_utf16_units_is_fine_even_when_longer_in_utf8() -> None:
    name = "日" * 200  # 600 UTF-8 bytes, 200 UTF-16 units: NTFS accepts it
    assert parse_user_path("C:\\" + name, flavor="windows").name == name


@pytest.mark.parametrize(("path", "expected"), [
    (r"C:\short\path.png", r"C:\short\path.png"),
    ("C:\\" + "a" * 300, "\\\\?\\C:\\" + "a" * 300),
    ("\\\\nas\\art\\" + "b" * 300, "\\\\?\\UNC\\nas\\art\\" + "b" * 300),
    ("\\\\?\\C:\\" + "c" * 300, "\\\\?\\C:\\" + "c" * 300),                 # already prefixed
    ("relative\\" + "d" * 300, "relative\\" + "d" * 300),                  # cannot be prefixed
])
def test_windows_long_path(path: str, expected: str) -> None:
    assert windows_long_path(path) == expected


def test_windows_long_path_accepts_a_parsed_path() -> None:
    parsed = parse_user_path("C:/" + "/".join(["folder"] * 50), flavor="windows")
    assert windows_long_path(parsed).startswith("\\\\?\\C:\\folder\\")


# --- user paths, POSIX flavor ------------------------------------------------------------------

POSIX_GOOD = [
    ("/home/ana/ref.png", "/home/ana/ref.png"),
    ("/home//ana/./ref.png", "/home/ana/ref.png"),
    ("'/home/ana/My Refs.serpent'", "/home/ana/My Refs.serpent"),
    ("/tmp/back\\slash", "/tmp/back\\slash"),              # a legal name character on POSIX
    ("/tmp/CON", "/tmp/CON"),                              # Windows rules do not apply here
    ("file:///home/ana/a%20b.png", "/home/ana/a b.png"),
    ("file://localhost/srv/x", "/srv/x"),
    ("/home/ana/trailing space ", "/home/ana/trailing space "),  # a legal POSIX name
    ("/home/ana/pasted.png\n", "/home/ana/pasted.png"),
]

POSIX_BAD = [
    ("", "empty"),
    ("relative/path", "not_absolute"),
    (r"C:\Users\ana", "foreign_path"),
    ("C:/Users/ana", "foreign_path"),
    (r"\\nas\share", "foreign_path"),
    ("/tmp/nul\x00byte", "control_character"),
    ("/tmp/" + "a" * 256, "too_long"),
    ("/" + "/".join(["a" * 200] * 25), "too_long"),
    ("file://otherhost/x", "remote_url"),
    ("file:relative/x", "bad_url"),
    (" /leading/space", "not_absolute"),
]


@pytest.mark.parametrize(("text", "expected"), POSIX_GOOD)
def test_posix_paths_that_parse(text: str, expected: str) -> None:
    path = parse_user_path(text, flavor="posix")
    assert isinstance(path, PurePosixPath)
    assert str(path) == expected


@pytest.mark.parametrize(("text", "reason"), POSIX_BAD)
def test_posix_paths_that_are_refused(text: str, reason: str) -> None:
    with pytest.raises(LibraryError) as caught:
        parse_user_path(text, flavor="posix")
    assert caught.value.code == PATH_INVALID
    assert caught.value.details["reason"] == reason


@pytest.mark.skipif(sys.platform == "win32", reason="home expansion of the POSIX flavor")
def test_native_paths_are_concrete_and_expand_home() -> None:
    path = parse_user_path("~/Pictures/ref.png")
    assert isinstance(path, Path)
    assert path == Path.home() / "Pictures" / "ref.png"


def test_an_unknown_flavor_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        parse_user_path("/x", flavor="amiga")  # type: ignore[arg-type]


# --- links, junctions and reparse points -------------------------------------------------------

@pytest.fixture
def library_root(tmp_path: Path) -> Path:
    root = tmp_path / "My Refs.serpent"
    (root / "files" / "ab").mkdir(parents=True)
    (root / "files" / "ab" / "1.png").write_bytes(b"png")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret")
    return root


def test_plain_paths_inside_and_outside(library_root: Path, tmp_path: Path) -> None:
    assert is_within(library_root, library_root)
    assert is_within(library_root / "files" / "ab" / "1.png", library_root)
    assert is_within(library_root / "files" / "not-yet-written.png", library_root)
    assert is_within("files/ab", library_root)                      # relative to the root
    assert not is_within(tmp_path / "outside" / "secret.txt", library_root)
    assert not is_within(tmp_path / "My Refs.serpent-other", library_root)  # prefix, not parent


def test_dot_dot_may_not_climb_out(library_root: Path) -> None:
    assert is_within(library_root / "files" / ".." / "files", library_root)
    assert not is_within(library_root / ".." / "outside", library_root)
    assert not is_within("files/../../outside", library_root)


def test_a_symlink_that_leads_out_is_not_followed(library_root: Path, tmp_path: Path) -> None:
    escape = library_root / "files" / "escape"
    escape.symlink_to(tmp_path / "outside", target_is_directory=True)
    assert not is_within(escape, library_root)
    assert not is_within(escape / "secret.txt", library_root)
    assert resolve_within(escape / "secret.txt", library_root) is None


def test_a_relative_symlink_that_climbs_out_is_not_followed(library_root: Path) -> None:
    sneaky = library_root / "files" / "sneaky"
    sneaky.symlink_to(Path("..") / ".." / "outside")
    assert not is_within(sneaky / "secret.txt", library_root)


def test_a_symlink_out_and_back_in_still_counts_as_out(library_root: Path, tmp_path: Path) -> None:
    (tmp_path / "outside" / "back").symlink_to(library_root / "files")
    hop = library_root / "hop"
    hop.symlink_to(tmp_path / "outside" / "back")
    assert not is_within(hop / "ab", library_root)


def test_a_symlink_that_stays_inside_is_followed(library_root: Path) -> None:
    alias = library_root / "alias"
    alias.symlink_to(Path("files") / "ab")
    assert is_within(alias / "1.png", library_root)
    assert resolve_within(alias / "1.png", library_root) == \
        (library_root / "files" / "ab" / "1.png").resolve()
    absolute_alias = library_root / "absolute-alias"
    absolute_alias.symlink_to(library_root / "files")
    assert is_within(absolute_alias / "ab", library_root)


def test_a_symlink_loop_is_refused_not_hung(library_root: Path) -> None:
    (library_root / "loop-a").symlink_to(library_root / "loop-b")
    (library_root / "loop-b").symlink_to(library_root / "loop-a")
    assert not is_within(library_root / "loop-a" / "x", library_root)


def test_a_root_behind_a_symlink_still_works(library_root: Path, tmp_path: Path) -> None:
    door = tmp_path / "door"
    door.symlink_to(library_root, target_is_directory=True)
    assert is_within(door / "files" / "ab", door)
    assert is_within(library_root / "files", door)


def test_resolves_into_follows_every_link(library_root: Path, tmp_path: Path) -> None:
    shortcut = tmp_path / "shortcut-to-internals"
    shortcut.symlink_to(library_root / "files", target_is_directory=True)
    assert resolves_into(shortcut / "ab" / "1.png", library_root)
    assert not is_within(shortcut / "ab" / "1.png", library_root)
    assert not resolves_into(tmp_path / "outside", library_root)


def _status(mode: int, attributes: int = 0, tag: int = 0) -> SimpleNamespace:
    return SimpleNamespace(st_mode=mode, st_file_attributes=attributes, st_reparse_tag=tag)


@pytest.mark.parametrize(("status", "kind"), [
    (_status(stat.S_IFLNK | 0o777), "symlink"),                              # POSIX symlink
    (_status(stat.S_IFDIR, 0x410, 0xA0000003), "junction"),                  # NTFS junction
    (_status(stat.S_IFLNK, 0x400, 0xA000000C), "symlink"),                   # Windows symlink
    (_status(stat.S_IFDIR, 0x400, 0x9000601A), None),                        # OneDrive placeholder
    (_status(stat.S_IFREG, 0x400, 0x80000013), None),                        # dedup reparse point
    (_status(stat.S_IFDIR, 0x10), None),                                     # plain directory
    (SimpleNamespace(st_mode=stat.S_IFREG), None),                           # POSIX file, no attrs
])
def test_link_kind_tells_junctions_and_symlinks_from_other_reparse_points(
        status: SimpleNamespace, kind: str | None) -> None:
    assert link_kind(status) == kind


def test_link_kind_of_a_real_symlink(tmp_path: Path) -> None:
    (tmp_path / "target").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "target")
    assert link_kind(os.lstat(tmp_path / "link")) == "symlink"
    assert link_kind(os.lstat(tmp_path / "target")) is None


@given(st.text(max_size=300), st.sampled_from(["windows", "posix"]), st.booleans())
def test_any_text_parses_or_gets_path_invalid_never_a_crash(text: str, flavor: Flavor,
                                                            absolute: bool) -> None:
    try:
        parsed = parse_user_path(text, flavor=flavor, require_absolute=absolute)
    except LibraryError as error:
        assert error.code == PATH_INVALID and error.message
        return
    text = str(parsed)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return  # a path wrapped in quotes is taken as Explorer's "Copy as path": they go
    again = parse_user_path(text, flavor=flavor, require_absolute=absolute)
    assert str(again) == text, "a parsed path parses to itself"
