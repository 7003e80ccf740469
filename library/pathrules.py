"""Path rules for every command that takes a path or creates a name on disk, for every OS.

Thread-safe (pure functions; `is_within`/`resolves_into` only stat the disk). Imported by the
worker and the main process. Names that become disk names follow the strictest rules of
Windows, macOS and Linux together, so a library copied between machines keeps working; user
paths are checked with the rules of the OS they belong to (`flavor`), so Windows rules are
tested here on Linux.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Iterable
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from library.errors import PATH_INVALID, LibraryError

Flavor = Literal["windows", "posix"]

NATIVE_FLAVOR: Flavor = "windows" if os.name == "nt" else "posix"

# Windows device names: reserved as a whole name and as the stem of any name ("nul.txt",
# "COM1.tar.gz", "aux .png"), in any case. Superscript digits count too (Microsoft docs).
WINDOWS_RESERVED_NAMES = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
    | {f"COM{d}" for d in "123456789¹²³"}
    | {f"LPT{d}" for d in "123456789¹²³"}
)
WINDOWS_ILLEGAL_CHARS = frozenset('<>:"/\\|?*')
MAX_NAME_BYTES = 255          # ext4/APFS: 255 UTF-8 bytes; NTFS: 255 UTF-16 units (never more)
MAX_WINDOWS_PATH_UNITS = 32767  # with the \\?\ prefix; MAX_PATH (260) without it
WINDOWS_MAX_PATH = 260
MAX_POSIX_PATH_BYTES = 4095   # PATH_MAX minus the terminating NUL
MAX_LINK_HOPS = 40            # like the kernel's ELOOP limit

_DRIVE = re.compile(r"^[A-Za-z]:")
_WINDOWS_LOOKING = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")
_UNSAFE_CHAR = re.compile(r'[<>:"/\\|?*\x00-\x1f\x7f]')


# ---------------------------------------------------------------------------------------------
# Names that become disk names (libraries, folders, exported files)
# ---------------------------------------------------------------------------------------------

def name_problem(name: str, *, suffix: str = "") -> tuple[str, str] | None:
    """Why `name` cannot be a file or folder name on every OS: (reason, message) or None.

    `reason` is stable (`empty`, `dot_name`, `illegal_character`, `control_character`,
    `trailing_dot_or_space`, `reserved_name`, `too_long`, `not_unicode`); the message is
    for people. `suffix` (e.g. ".serpent") is appended on disk and counts for the length.
    """
    if not name:
        return "empty", "A name cannot be empty."
    if name in {".", ".."}:
        return "dot_name", f'"{name}" cannot be used as a name.'
    try:
        encoded = (name + suffix).encode("utf-8")
    except UnicodeEncodeError:
        return "not_unicode", "The name contains characters that cannot be stored on disk."
    for char in name:
        if ord(char) < 32 or char == "\x7f":
            return ("control_character",
                    "A name cannot contain control characters (tabs, line breaks...).")
        if char in WINDOWS_ILLEGAL_CHARS:
            return ("illegal_character",
                    f'A name cannot contain "{char}". These characters are not allowed in names: '
                    '< > : " / \\ | ? *')
    if name[-1] in ". ":
        return ("trailing_dot_or_space",
                "A name cannot end with a dot or a space (Windows would drop it).")
    if is_reserved_windows_name(name):
        return ("reserved_name",
                f'"{name}" is a reserved device name on Windows; choose another name.')
    if len(encoded) > MAX_NAME_BYTES:
        room = MAX_NAME_BYTES - len(suffix.encode("utf-8"))
        return ("too_long",
                f"The name is too long (at most {room} bytes of UTF-8, about {room} letters).")
    return None


def validate_entry_name(name: str, *, field: str | None = None, suffix: str = "") -> str:
    """The name a library, folder or file gets on disk, or `LibraryError(PATH_INVALID)`.

    Returns the name NFC-normalized (macOS and Windows otherwise disagree on "é") and with
    surrounding whitespace removed (what a person typing in a dialog means). Rules are the
    union of Windows, macOS and Linux, whatever OS runs this.
    """
    if not isinstance(name, str):
        raise LibraryError(PATH_INVALID, "A name must be text.", **_field(field))
    cleaned = unicodedata.normalize("NFC", name).strip()
    problem = name_problem(cleaned, suffix=suffix)
    if problem is not None:
        reason, message = problem
        raise LibraryError(PATH_INVALID, message, reason=reason, **_field(field))
    return cleaned


def is_reserved_windows_name(name: str) -> bool:
    """True for CON, nul.txt, "Com1 .png", LPT¹...: names Windows maps to devices."""
    stem = name.split(".", 1)[0].rstrip(" ")
    return stem.upper() in WINDOWS_RESERVED_NAMES


def safe_disk_name(name: str, *, fallback: str = "untitled", suffix: str = "") -> str:
    """`name` turned into a name every OS accepts, changing as little as possible.

    Illegal and control characters become "_", trailing dots and spaces go, reserved device
    names get a "_" ("CON" -> "CON_", "nul.txt" -> "nul_.txt"), and an over-long name is cut
    (keeping its extension). Idempotent; the result always passes `validate_entry_name`
    (with the same `suffix`).
    """
    text = unicodedata.normalize("NFC", str(name))
    text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates -> "?" -> "_"
    text = _UNSAFE_CHAR.sub("_", text).strip().rstrip(". ")
    if text in {"", ".", ".."}:
        text = fallback
    if is_reserved_windows_name(text):
        stem, dot, rest = text.partition(".")
        text = f"{stem.rstrip(' ')}_{dot}{rest}"
    text = _shorten(text, MAX_NAME_BYTES - len(suffix.encode("utf-8")))
    if name_problem(text, suffix=suffix) is not None:  # pragma: no cover - defensive
        text = _shorten(fallback, MAX_NAME_BYTES - len(suffix.encode("utf-8")))
    return text


def _shorten(text: str, limit: int) -> str:
    if len(text.encode("utf-8")) <= limit:
        return text
    stem, dot, extension = text.rpartition(".")
    if not dot or not stem or len(extension.encode("utf-8")) > 16:
        stem, extension = text, ""
    tail = f".{extension}" if extension else ""
    room = limit - len(tail.encode("utf-8"))
    cut = stem.encode("utf-8")[:max(room, 1)].decode("utf-8", "ignore")
    result = (cut.rstrip(". ") or "_") + tail
    return result.rstrip(". ") or "_"


def collision_key(name: str) -> str:
    """The key two names share when a case-insensitive file system sees them as one name."""
    return unicodedata.normalize("NFC", name).strip().rstrip(". ").casefold()


def casefold_collides(name: str, existing: Iterable[str]) -> str | None:
    """The existing name that `name` would clash with on Windows or macOS, else None.

    "Refs" clashes with "refs" and with "REFS"; "Café" (NFC) with "Café" (NFD). A caller
    renaming an entry passes the *other* names, so "refs" -> "Refs" is allowed.
    """
    key = collision_key(name)
    for other in existing:
        if collision_key(other) == key:
            return other
    return None


# ---------------------------------------------------------------------------------------------
# Paths people and agents give us
# ---------------------------------------------------------------------------------------------

def parse_user_path(text: str, *, flavor: Flavor | None = None,
                    require_absolute: bool = True, field: str | None = None) -> PurePath:
    """A path typed, pasted or sent by an agent, checked for `flavor`'s syntax.

    Accepts surrounding quotes (Explorer's "Copy as path"), `file:` URLs, `~` (native
    flavor only), forward or back slashes on Windows, drive letters, UNC shares and
    `\\\\?\\` long paths (returned without the prefix: see `windows_long_path`). Raises
    `LibraryError(PATH_INVALID)` with a message for people. Returns a concrete `Path`
    when `flavor` is this OS's, else a `PureWindowsPath`/`PurePosixPath`.
    Does not touch the disk: existence is the caller's business (PATH_NOT_FOUND).
    """
    chosen: Flavor = flavor or NATIVE_FLAVOR
    if chosen not in ("windows", "posix"):
        raise ValueError(f"unknown path flavor {flavor!r}")
    if not isinstance(text, str):
        raise _invalid("A path must be text.", "not_text", field)
    cleaned = _unquote(text, chosen)
    if not cleaned:
        raise _invalid("The path is empty.", "empty", field)
    if "\x00" in cleaned:
        raise _invalid("The path contains a NUL character.", "control_character", field)
    if cleaned[:5].lower() == "file:":
        cleaned = _from_file_url(cleaned, chosen, field)
    if chosen == "windows":
        pure: PurePath = _parse_windows(cleaned, require_absolute, field)
    else:
        pure = _parse_posix(cleaned, require_absolute, field, native=chosen == NATIVE_FLAVOR)
    return Path(pure) if chosen == NATIVE_FLAVOR else pure


def windows_long_path(path: str | PurePath) -> str:
    """The `\\\\?\\` form of an absolute Windows path when it is longer than MAX_PATH.

    Win32 calls refuse longer paths unless the prefix is used (or long paths are enabled
    machine-wide, which we cannot count on). Short or already prefixed paths come back
    unchanged. Relative paths cannot take the prefix and come back unchanged too.
    """
    text = str(path).replace("/", "\\")
    if text.startswith("\\\\?\\") or len(text) < WINDOWS_MAX_PATH - 12:  # dirs: 248
        return text
    if text.startswith("\\\\"):
        return "\\\\?\\UNC\\" + text[2:]
    if _DRIVE.match(text) and text[2:3] == "\\":
        return "\\\\?\\" + text
    return text


def _unquote(text: str, flavor: Flavor) -> str:
    """Drop what pasting adds: line breaks, tabs, surrounding quotes; on Windows also spaces
    (no Windows name ends with one). POSIX names may end with a space, so those stay."""
    junk = None if flavor == "windows" else "\r\n\t"
    cleaned = text.strip(junk)
    if len(cleaned) >= 2 and cleaned[0] == cleaned[-1] and cleaned[0] in "\"'":
        cleaned = cleaned[1:-1].strip(junk)
    return cleaned


def _from_file_url(text: str, flavor: Flavor, field: str | None) -> str:
    parts = urlsplit(text)
    host = parts.netloc
    path = unquote(parts.path)
    if not path.startswith("/"):
        raise _invalid("A file address must name a full path (file:///...).", "bad_url", field)
    if flavor == "posix":
        if host not in ("", "localhost"):
            raise _invalid(f'The file address points to another computer ("{host}").',
                           "remote_url", field)
        return path
    if host not in ("", "localhost"):
        return "\\\\" + host + path.replace("/", "\\")
    if not re.match(r"^/[A-Za-z]:", path):
        raise _invalid("A file address must start with a drive letter (file:///C:/...).",
                       "bad_url", field)
    return path[1:]


def _parse_windows(text: str, require_absolute: bool, field: str | None) -> PureWindowsPath:
    text = text.replace("/", "\\")
    literal = False  # after \\?\ Windows takes every component literally
    if text.startswith(("\\\\?\\", "\\\\.\\", "\\??\\")):
        body = text[4:]
        if body[:4].upper() == "UNC\\" and text.startswith("\\\\?\\"):
            text, literal = "\\\\" + body[4:], True
        elif _DRIVE.match(body) and body[2:3] in ("\\", ""):
            text, literal = body, True
        else:
            raise _invalid("Device and volume paths (\\\\.\\..., \\\\?\\Volume...) are not "
                           "supported; use a drive letter or a network share.", "device_path",
                           field)
    if text.startswith("\\\\"):
        pieces = text[2:].split("\\")
        if len(pieces) < 2 or not pieces[0] or not pieces[1]:
            raise _invalid("A network path needs a server and a share: \\\\server\\share\\...",
                           "unc_incomplete", field)
        anchor, components = f"\\\\{pieces[0]}\\{pieces[1]}\\", pieces[2:]
        for host_part in pieces[:2]:
            _check_windows_component(host_part, field)
    elif _DRIVE.match(text):
        if text[2:3] != "\\":
            raise _invalid(f'"{text[:2]}" without a backslash is relative to that drive\'s '
                           f"current folder; write {text[:2]}\\...", "drive_relative", field)
        anchor, components = text[:3].upper(), text[3:].split("\\")
    elif text.startswith("\\"):
        if require_absolute:
            raise _invalid("The path needs a drive letter (C:\\...) or a network share.",
                           "not_absolute", field)
        anchor, components = "\\", text[1:].split("\\")
    else:
        if require_absolute:
            raise _invalid("The path must be absolute (C:\\... or \\\\server\\share\\...).",
                           "not_absolute", field)
        anchor, components = "", text.split("\\")
    kept: list[str] = []
    for component in components:
        if component == "":
            continue  # doubled or trailing separators
        if component in (".", ".."):
            if literal:
                raise _invalid('A \\\\?\\ path cannot contain "." or ".." parts.',
                               "dot_name", field)
            if component == "..":
                if kept:
                    kept.pop()
                elif not anchor:
                    kept.append("..")  # relative path climbing up: left for the caller
            continue
        _check_windows_component(component, field)
        kept.append(component)
    joined = anchor + "\\".join(kept)
    if len(joined.encode("utf-16-le")) // 2 > MAX_WINDOWS_PATH_UNITS - 8:
        raise _invalid("The path is too long for Windows.", "too_long", field)
    return PureWindowsPath(joined or ".")


def _check_windows_component(component: str, field: str | None) -> None:
    problem = name_problem(component)
    if problem is None:
        return
    reason, message = problem
    if reason == "too_long" and len(component.encode("utf-16-le")) // 2 <= MAX_NAME_BYTES:
        return  # NTFS counts UTF-16 units, not bytes
    if reason == "illegal_character" and ":" in component:
        message = ('A colon is only allowed after the drive letter ("C:"); "name:stream" '
                   "would address a hidden data stream.")
    raise _invalid(f'"{component}": {message}', reason, field)


def _parse_posix(text: str, require_absolute: bool, field: str | None,
                 native: bool) -> PurePosixPath:
    if _WINDOWS_LOOKING.match(text):
        raise _invalid("This looks like a Windows path; on this computer paths start with /.",
                       "foreign_path", field)
    if native and text.startswith("~"):
        try:
            text = str(Path(text).expanduser())
        except RuntimeError:
            raise _invalid("The home folder in the path is unknown.", "unknown_home",
                           field) from None
    path = PurePosixPath(text)
    if require_absolute and not path.is_absolute():
        raise _invalid("The path must be absolute (start with / or ~).", "not_absolute", field)
    for component in path.parts:
        if component != "/" and len(os.fsencode(component)) > MAX_NAME_BYTES:
            raise _invalid(f'The name "{component[:40]}..." in the path is too long.',
                           "too_long", field)
    if len(os.fsencode(str(path))) > MAX_POSIX_PATH_BYTES:
        raise _invalid("The path is too long.", "too_long", field)
    return path


def _invalid(message: str, reason: str, field: str | None) -> LibraryError:
    return LibraryError(PATH_INVALID, message, reason=reason, **_field(field))


def _field(field: str | None) -> dict[str, Any]:
    return {"field": field} if field else {}


# ---------------------------------------------------------------------------------------------
# Containment: links, junctions and reparse points that lead out of a library
# ---------------------------------------------------------------------------------------------

LinkKind = Literal["symlink", "junction"]
_IO_REPARSE_TAG_SYMLINK = getattr(stat, "IO_REPARSE_TAG_SYMLINK", 0xA000000C)
_IO_REPARSE_TAG_MOUNT_POINT = getattr(stat, "IO_REPARSE_TAG_MOUNT_POINT", 0xA0000003)
_FILE_ATTRIBUTE_REPARSE_POINT = getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0x400)


def link_kind(status: os.stat_result | Any) -> LinkKind | None:
    """What an `os.lstat` result is, as far as leaving a folder goes.

    POSIX symlinks and Windows symlinks are "symlink"; NTFS junctions (mount points) are
    "junction". Other reparse points (OneDrive placeholders, dedup, ...) are ordinary files
    and folders: they do not redirect to another place.
    """
    if stat.S_ISLNK(status.st_mode):
        return "symlink"
    attributes = getattr(status, "st_file_attributes", 0)
    if attributes & _FILE_ATTRIBUTE_REPARSE_POINT:
        tag = getattr(status, "st_reparse_tag", 0)
        if tag == _IO_REPARSE_TAG_SYMLINK:
            return "symlink"
        if tag == _IO_REPARSE_TAG_MOUNT_POINT:
            return "junction"
    return None


def is_within(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """True when `path` names a place inside `root` (or root itself) without leaving it.

    Walks `path` below `root` one part at a time; a symlink or junction on the way is only
    followed while its target stays inside `root`, so a link that leads out (even one that
    would come back in later) makes the answer False. `..` may not climb above `root`. A
    relative `path` is taken relative to `root`. Missing parts are fine (a file about to be
    written). The root itself is resolved fully: it may sit behind links (macOS /tmp).
    """
    return _resolve_inside(Path(path), Path(root)) is not None


def resolve_within(path: str | os.PathLike[str],
                   root: str | os.PathLike[str]) -> Path | None:
    """Where `path` really is, when `is_within(path, root)`; else None."""
    return _resolve_inside(Path(path), Path(root))


def resolves_into(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """True when `path`, with every link followed, ends up inside `root`.

    The other question: "does this import source or export target really point into the
    library's internals?" (PATH_FORBIDDEN), whichever links it takes to get there.
    """
    target = Path(os.path.realpath(path))
    base = Path(os.path.realpath(root))
    return _relative_parts(target, base) is not None


def _resolve_inside(path: Path, root: Path) -> Path | None:
    real_root = Path(os.path.realpath(root))
    absolute_root = Path(os.path.abspath(root))
    start = path if path.is_absolute() else absolute_root / path
    pending = _relative_parts(start, absolute_root)
    if pending is None:
        pending = _relative_parts(start, real_root)
    if pending is None:
        return None
    stack: list[str] = []
    hops = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not stack:
                return None
            stack.pop()
            continue
        here = real_root.joinpath(*stack, part)
        try:
            status = os.lstat(here)
        except OSError:
            stack.append(part)  # does not exist (yet): nothing to follow
            continue
        if link_kind(status) is None:
            stack.append(part)
            continue
        hops += 1
        if hops > MAX_LINK_HOPS:
            return None
        try:
            target = Path(os.readlink(here))
        except OSError:
            return None
        if os.name == "nt":
            target = Path(_strip_windows_prefix(str(target)))
        if target.is_absolute():
            inside = _relative_parts(target, real_root)
            if inside is None:
                inside = _relative_parts(target, absolute_root)
            if inside is None:
                return None
            stack = []
            pending = inside + pending
        else:
            pending = list(target.parts) + pending
    return real_root.joinpath(*stack)


def _relative_parts(path: Path, root: Path) -> list[str] | None:
    """`path`'s parts below `root`, compared lexically (case-insensitive on Windows)."""
    path_parts = [os.path.normcase(p) for p in path.parts]
    root_parts = [os.path.normcase(p) for p in root.parts]
    if path_parts[:len(root_parts)] != root_parts:
        return None
    return list(path.parts[len(root_parts):])


SYSTEM_FOLDERS = ("/proc", "/sys", "/dev") if os.name == "posix" else ()


def is_system_path(real: str | os.PathLike[str]) -> bool:
    """A path (already resolved) in the kernel's pseudo file systems: /proc, /sys, /dev.
    Nothing there is a person's file to import, nor a place for one to be written."""
    text = os.fspath(real)
    return any(text == root or text.startswith(root + "/") for root in SYSTEM_FOLDERS)


def _strip_windows_prefix(text: str) -> str:
    if text.startswith("\\\\?\\UNC\\"):
        return "\\\\" + text[8:]
    if text.startswith(("\\\\?\\", "\\??\\")):
        return text[4:]
    return text


__all__ = [
    "MAX_NAME_BYTES", "NATIVE_FLAVOR", "WINDOWS_ILLEGAL_CHARS", "WINDOWS_RESERVED_NAMES",
    "casefold_collides", "collision_key", "is_reserved_windows_name", "is_system_path",
    "is_within", "link_kind",
    "name_problem", "parse_user_path", "resolve_within", "resolves_into",
    "safe_disk_name", "validate_entry_name", "windows_long_path",
]
