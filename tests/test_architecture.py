"""The import rules of docs/architecture.md, checked on the source of every module (no import
cycles, deferred imports included), and the house rules on the shape of the tree: rooms say
what they hold, none is crowded, no module is long."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MCP_STACK = {"mcp", "mcp_types", "starlette", "uvicorn", "sse_starlette", "httpx2"}
TREES = ("serpent_tk", "library", "tests", "bench")  # where the size rules apply
MAX_LINES = 500  # docs/style.md: a module past ~500 lines gets split by responsibility
MAX_MODULES_PER_FOLDER = 15  # more side by side, and a room needs rooms of its own
# `commands/` folders hold one module per command domain, found through their own table
CROWD_EXCEPTIONS = {"commands"}
# where a package's code runs, as its docstring should say (docs/style.md)
WHERE_IT_RUNS = re.compile(r"Tk thread|worker process|Worker process|main process|Main "
                           r"process|both processes|every process|[Tt]hread-safe|its own "
                           r"thread|Runs in|runs in")


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def names_in(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module name an import in `source` may bind, absolute: `from a import b` gives
    `a` and `a.b` (b may be a module), and relative imports are resolved against `module`
    first (`from ..worker import process` in `library.client_x` is `library.worker` and
    `library.worker.process`)."""
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            if base:
                names.add(base)
                names.update(f"{base}.{alias.name}" for alias in node.names
                             if alias.name != "*")
    return names


@functools.cache
def imported_names(path: Path) -> frozenset[str]:
    return frozenset(names_in(path.read_text(encoding="utf-8"), module_name(path),
                              path.name == "__init__.py"))


def top(name: str) -> str:
    return name.split(".")[0]


def under(path: Path, package: str) -> bool:
    return path.is_relative_to(ROOT / package)


def all_sources() -> list[Path]:
    return modules("serpent_tk") + modules("library")


def test_there_is_something_to_check() -> None:
    assert len(all_sources()) > 5


def report(offenders: list[str], rule: str) -> str:
    """Every module breaking `rule`, one per line (the whole list, not the first)."""
    return f"{len(offenders)} module(s) break the rule: {rule}\n  " + "\n  ".join(offenders)


def import_offenders(paths: list[Path], bad: Any) -> list[str]:
    """`path imports [...]` for each of `paths` whose imports `bad(path, name)` flags."""
    offenders = []
    for path in paths:
        names = sorted(n for n in imported_names(path) if bad(path, n))
        if names:
            offenders.append(f"{path.relative_to(ROOT)} imports {names}")
    return offenders


def test_library_never_imports_the_app_tk_or_mcp() -> None:
    offenders = import_offenders(modules("library"), lambda _p, n: top(n) in {
        "serpent_tk", "tkinter", "_tkinter", *MCP_STACK})
    assert not offenders, report(offenders, "library never imports serpent_tk, tkinter or "
                                 "the MCP stack")


def test_only_ui_imports_tkinter() -> None:
    offenders = import_offenders(
        [p for p in all_sources() if not under(p, "serpent_tk/ui")],
        lambda _p, n: top(n) in {"tkinter", "_tkinter", "tkinterdnd2", "sv_ttk"})
    assert not offenders, report(offenders, "only serpent_tk/ui imports tkinter")


def test_only_mcp_imports_the_mcp_stack() -> None:
    offenders = import_offenders(
        [p for p in all_sources() if not under(p, "serpent_tk/mcp")],
        lambda _p, n: top(n) in MCP_STACK)
    assert not offenders, report(offenders, "only serpent_tk/mcp imports the MCP stack")


def test_ui_and_mcp_never_import_each_other() -> None:
    def other(path: Path) -> str:
        return "serpent_tk.mcp" if under(path, "serpent_tk/ui") else "serpent_tk.ui"

    offenders = import_offenders(
        modules("serpent_tk/ui") + modules("serpent_tk/mcp"),
        lambda p, n: n == other(p) or n.startswith(other(p) + "."))
    assert not offenders, report(offenders, "ui and mcp never import each other")


def test_ui_never_opens_sqlite_or_the_worker() -> None:
    offenders = import_offenders(
        modules("serpent_tk/ui"),
        lambda _p, n: top(n) == "sqlite3" or n.startswith("library.worker"))
    assert not offenders, report(offenders, "ui never imports sqlite3 or library.worker")


def test_nothing_imports_the_composition_root() -> None:
    offenders = [p for p in all_sources()
                 if p.name != "app.py" and "serpent_tk.app" in imported_names(p)]
    assert not offenders


def test_bootstrap_and_package_init_use_only_the_standard_library() -> None:
    import sys
    for relative in ("serpent_tk/bootstrap.py", "serpent_tk/bootstrap_pip.py",
                     "serpent_tk/__init__.py", "serpent_tk/__main__.py"):
        names = {top(n) for n in imported_names(ROOT / relative)}
        third_party = {n for n in names
                       if n not in sys.stdlib_module_names and n not in {"serpent_tk"}}
        assert not third_party, f"{relative} imports {sorted(third_party)}"


def test_relative_imports_are_resolved_before_the_rules_apply() -> None:
    source = ("from . import errors\nfrom .worker import process\n"
              "from ..schemas import assets\nfrom ...x import y\n")
    names = names_in(source, "library.sub.client_x")
    assert {"library.sub", "library.sub.errors", "library.sub.worker.process",
            "library.schemas.assets", "x", "x.y"} <= names
    assert {"library.worker", "library.worker.process"} <= names_in(
        "from ..worker import process", "library.sub", is_package=True)
    # a window module reaching into the MCP server relatively is still caught
    assert {"serpent_tk.mcp", "serpent_tk.mcp.server"} <= names_in(
        "from ...mcp import server", "serpent_tk.ui.shell.bus")
    assert "serpent_tk.mcp" in names_in("from ... import mcp", "serpent_tk.ui.shell.bus")


def test_automation_never_imports_the_window_or_the_mcp_server() -> None:
    offenders = import_offenders(
        modules("serpent_tk/automation"),
        lambda _p, n: any(n == p or n.startswith(p + ".")
                          for p in ("serpent_tk.ui", "serpent_tk.mcp")))
    assert not offenders, report(offenders, "automation never imports serpent_tk.ui or "
                                 "serpent_tk.mcp")


def test_mcp_reaches_libraries_only_through_the_gateway() -> None:
    """The MCP layer never holds the library client or worker code: every call goes through
    `automation` (which owns the `LibraryHost`)."""
    forbidden = ("library.client", "library.worker_handle", "library.worker")
    offenders = import_offenders(
        modules("serpent_tk/mcp"),
        lambda _p, n: any(n == f or n.startswith(f + ".") for f in forbidden))
    assert not offenders, report(offenders, "mcp never imports library.client, "
                                 "library.worker_handle or library.worker")


def main_process_modules() -> list[Path]:
    """Everything that runs in the main process: the app, and the library's main side (its
    client, protocol, schemas, errors, events and path rules; not `library/worker/`)."""
    return modules("serpent_tk") + [p for p in modules("library")
                                    if not under(p, "library/worker")]


def test_the_main_process_never_imports_sqlite3() -> None:
    """One writer: only the worker opens a library's SQLite file (docs/architecture.md)."""
    offenders = import_offenders(main_process_modules(), lambda _p, n: top(n) == "sqlite3")
    assert not offenders, report(offenders, "no main-process module imports sqlite3")


def packages() -> list[Path]:
    return [p for p in all_sources() if p.name == "__init__.py"]


def package_docstring_problem(path: Path) -> str | None:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    if not doc:
        return f"{path.relative_to(ROOT)} has no docstring"
    first, _, rest = doc.partition("\n")
    if not (first.endswith(".") and (not rest or rest.startswith("\n"))):
        return (f"{path.relative_to(ROOT)}: the docstring's first line should say, on its "
                f"own, what lives in the package: {first!r}")
    if not WHERE_IT_RUNS.search(doc):
        return (f"{path.relative_to(ROOT)}: the docstring should say where the code runs (Tk "
                f"thread, worker process, main process, thread-safe...)")
    return None


def test_every_package_says_what_lives_there_and_where_it_runs() -> None:
    offenders = [problem for problem in map(package_docstring_problem, packages()) if problem]
    assert not offenders, report(offenders, "every package's docstring says what lives "
                                 "there and where it runs")


def folders() -> list[Path]:
    return sorted({p.parent for tree in TREES for p in modules(tree)})


def test_no_folder_is_crowded() -> None:
    """Rooms, not a hall: past ~15 modules side by side a folder is split into packages
    (fixtures, `__init__` and `conftest` do not count; a `commands/` folder of one module
    per command domain is excepted)."""
    offenders = []
    for folder in folders():
        if folder.name in CROWD_EXCEPTIONS:
            continue
        count = [p.name for p in folder.glob("*.py")
                 if p.name not in ("__init__.py", "conftest.py")]
        if len(count) > MAX_MODULES_PER_FOLDER:
            offenders.append(f"{folder.relative_to(ROOT)} holds {len(count)} modules side by "
                             f"side")
    assert not offenders, report(offenders, f"at most {MAX_MODULES_PER_FOLDER} modules "
                                 f"side by side")


def test_no_module_is_longer_than_500_lines() -> None:
    """docs/style.md: a module past ~500 lines is split by responsibility. Tests too: none needs
    an exception today."""
    offenders = []
    for path in [p for tree in TREES for p in modules(tree)]:
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            offenders.append(f"{path.relative_to(ROOT)} has {lines} lines")
    assert not offenders, report(offenders, f"no module past {MAX_LINES} lines")


def test_the_rules_report_every_offender() -> None:
    """Each rule above lists all the modules that break it, not only the first one."""
    paths = [ROOT / "library" / "errors.py", ROOT / "library" / "events.py"]
    assert import_offenders(paths, lambda _p, n: n == "__future__") == [
        "library/errors.py imports ['__future__']", "library/events.py imports ['__future__']"]
    message = report(["a.py has 501 lines", "b.py has 502 lines"], "short")
    assert "a.py has 501 lines" in message and "b.py has 502 lines" in message


def test_every_room_is_in_the_architecture_layout() -> None:
    """A newcomer finds every package in docs/architecture.md's table of rooms."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    layout = page[page.index("## Layout"):]
    missing = [str(p.parent.relative_to(ROOT)) for p in packages()
               if f"`{p.parent.relative_to(ROOT).as_posix()}/`" not in layout]
    assert not missing, f"packages missing from docs/architecture.md's layout: {missing}"


# -- command names are the registry's ---------------------------------------------------

# Where a command may be named as data: the files that declare commands, nowhere else (files,
# never folders). The registry's declarations (`automation/commands/`) name theirs in calls
# only: `command("asset.tag", ...)`; the worker's functions not at all (the catalogue entry
# names them: `handler="asset_edit:tag"`).
COMMAND_DECLARATIONS = ("library/catalogue/entries.py", "serpent_tk/automation/registry.py")
CAPABILITIES_MODULE = ROOT / "serpent_tk/automation/policy.py"


def command_names() -> frozenset[str]:
    from serpent_tk.automation.commands import build_registry

    return frozenset(build_registry().commands)


def names_as_data(source: str, names: frozenset[str],
                  constants: frozenset[str] = frozenset()) -> list[tuple[int, str]]:
    """Where `source` uses a command name as data: compared (`spec.name == "asset.tag"`,
    `in {...}`, `.startswith(...)`, a `match` case), as a dict key, in a set, tuple or list
    literal, or as a constant (`constants`: module-level names bound to a command name)
    that is then compared. Calling a command by its name (`submit("asset.tag", ...)`) or
    naming one as a dict value is fine."""
    found: list[tuple[int, str]] = []

    def named(node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value in names:
            return node.value
        return None

    for node in ast.walk(ast.parse(source)):
        suspects: list[ast.AST] = []
        if isinstance(node, ast.Compare):
            suspects = [node.left, *node.comparators]
            for side in suspects:
                key = side.id if isinstance(side, ast.Name) else \
                    side.attr if isinstance(side, ast.Attribute) else None
                if key in constants:
                    found.append((node.lineno, str(key)))
        elif isinstance(node, ast.Dict):
            suspects = [k for k in node.keys if k is not None]
        elif isinstance(node, ast.Set | ast.Tuple | ast.List):
            suspects = list(node.elts)
        elif isinstance(node, ast.MatchValue):
            suspects = [node.value]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("startswith", "endswith"):
            suspects = list(node.args)
        found += [(node.lineno, name) for name in map(named, suspects) if name]
    return found


def command_constants(paths: list[Path], names: frozenset[str]) -> frozenset[str]:
    """Module-level names bound to a command name (`THUMBNAIL = "asset.thumbnail"`)."""
    bound = set()
    for path in paths:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(
                    node.value, ast.Constant) and node.value.value in names:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                bound.update(t.id for t in targets if isinstance(t, ast.Name))
    return frozenset(bound)


def test_command_names_are_data_only_in_their_declarations() -> None:
    """The registry is the only place that knows a command: no table keyed by command
    names, no `name == "..."` special case anywhere else (what a command does differently
    is on its spec)."""
    names = command_names()
    assert all((ROOT / d).is_file() for d in COMMAND_DECLARATIONS)
    sources = [p for p in all_sources() if not any(p == ROOT / d for d in COMMAND_DECLARATIONS)]
    # capability names spelled like a command (`ui.notify`) are not command names
    constants = command_constants([p for p in sources if p != CAPABILITIES_MODULE], names)
    offenders = [f"{path.relative_to(ROOT)}:{line}: {name}" for path in sources
                 for line, name in names_as_data(path.read_text(encoding="utf-8"), names,
                                                 constants)]
    assert not offenders, "command names used as data:\n" + "\n".join(offenders)


def test_the_command_name_scan_sees_what_it_should() -> None:
    names = frozenset({"asset.tag", "library.rename"})
    caught = ('if spec.name == "asset.tag": pass\n'
              'VERBS = {"asset.tag": "tagged"}\n'
              'if name in {"library.rename", "x"}: pass\n'
              'if command.startswith("asset.tag"): pass\n'
              'match name:\n    case "asset.tag": pass\n'
              'LIFECYCLE = ("library.rename",)\n'
              'if spec.name == RENAME: pass\n')
    assert sorted(line for line, _ in names_as_data(caught, names, frozenset({"RENAME"}))) == [
        1, 2, 3, 4, 6, 7, 8]
    fine = ('gateway.submit("asset.tag", {"libraryId": x}, caller)\n'
            'commands.call("library.rename", args, done, doing="rename it")\n'
            'PARTS = {"tags": "asset.tag"}\n'
            'command = "asset.tag"\n'
            'if spec.name.startswith("plugin."): pass\n')
    assert names_as_data(fine, names) == []
    assert command_constants([CAPABILITIES_MODULE], frozenset({"ui.notify"})) == {"UI_NOTIFY"}


# -- no import cycles, deferred imports included ------------------------------------------
# An `import` inside a function counts like one at the top (it runs all the same, only
# later): a function-level import may put off loading numpy or PIL's plugins, never hide a
# cycle. Imports under `if TYPE_CHECKING:` never run and do not count.

def type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of every node under an `if TYPE_CHECKING:` (or `typing.TYPE_CHECKING`)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else \
                test.attr if isinstance(test, ast.Attribute) else None
            if name == "TYPE_CHECKING":
                skipped.update(id(inner) for branch in node.body for inner in ast.walk(branch))
    return skipped


def imports_of(source: str, module: str, known: set[str], is_package: bool = False
               ) -> dict[str, int]:
    """The modules of `known` that `source` (the module `module`) imports, anywhere in it,
    with the line of the first such import. `from a import b` is `a.b` when that is a module,
    else `a`; a name that is not in `known` is cut back to its nearest known package."""
    tree = ast.parse(source)
    skipped = type_checking_only(tree)
    package = module if is_package else module.rpartition(".")[0]
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module:
                found.setdefault(target, node.lineno)
    return found


def import_graph(paths: list[Path]) -> dict[str, dict[str, int]]:
    by_name = {module_name(path): path for path in paths}
    known = set(by_name)
    return {name: imports_of(path.read_text(encoding="utf-8"), name, known,
                             path.name == "__init__.py")
            for name, path in by_name.items()}


def reachable(graph: dict[str, dict[str, int]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in graph.get(todo.pop(), {}):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others (each group
    holds one cycle or more)."""
    reach = {name: reachable(graph, name) for name in graph}
    groups = {frozenset({name} | {other for other in reach[name] if name in reach[other]})
              for name in graph if name in reach[name]}
    return sorted(sorted(group) for group in groups)


def describe(group: list[str], graph: dict[str, dict[str, int]]) -> str:
    members = set(group)
    edges = [f"    {name}:{line} imports {target}" for name in group
             for target, line in sorted(graph[name].items()) if target in members]
    return f"  {' <-> '.join(group)}\n" + "\n".join(edges)


def test_no_module_imports_itself_through_others() -> None:
    graph = import_graph(all_sources())
    found = cycles(graph)
    assert not found, (f"{len(found)} import cycle(s); move the piece both sides need to "
                       "where it belongs (a function-level import does not hide one):\n"
                       + "\n".join(describe(group, graph) for group in found))


def test_the_cycle_finder_sees_deferred_imports_and_skips_type_checking() -> None:
    known = {"pkg", "pkg.a", "pkg.b", "pkg.c"}
    a = imports_of("from pkg import b\n", "pkg.a", known)
    b = imports_of("def later():\n    from pkg.a import thing\n", "pkg.b", known)
    c = imports_of("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                   "    from pkg import a\nfrom . import b\n", "pkg.c", known)
    assert a == {"pkg.b": 1} and b == {"pkg.a": 2} and c == {"pkg.b": 4}
    graph = {"pkg": {}, "pkg.a": a, "pkg.b": b, "pkg.c": c}
    assert cycles(graph) == [["pkg.a", "pkg.b"]]
    assert "pkg.b:2 imports pkg.a" in describe(["pkg.a", "pkg.b"], graph)
    assert cycles({"x": {"y": 1}, "y": {"z": 1}, "z": {}}) == []


# CONTRIBUTING.md "Module names": what a shared name means (command domains share theirs)
SHARED_MODULE_NAMES = {"events", "errors", "process", "server", "runner", "wire", "registry",
                       "catalogue", "analysis", "idempotency", "plugin", "thumbnails"}
OLD_SPELLINGS = {"serpent_tk/ui/browser/color_filter.py"}  # American, kept until it is quiet


def test_module_names_follow_the_contributing_guide() -> None:
    paths = [p for tree in ("serpent_tk", "library") for p in modules(tree)
             if not p.name.startswith("__")]
    offenders = [f"{p.relative_to(ROOT)}: not lower_case words" for p in paths
                 if not re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", p.stem)]
    offenders += [f"{p.relative_to(ROOT)}: a drawer, not a job" for p in paths
                  if re.search(r"(^|_)(utils?|helpers?|misc|stuff)(_|$)", p.stem)]
    offenders += [f"{p.relative_to(ROOT)}: British spelling (colour, catalogue, analyser)"
                  for p in paths if re.search(r"color|catalog(?!ue)|analyz", p.stem)
                  and p.relative_to(ROOT).as_posix() not in OLD_SPELLINGS]
    domains = {p.stem for p in paths if p.parent.name in ("schemas", "commands")}
    places: dict[str, list[str]] = {}
    for path in paths:
        places.setdefault(path.stem, []).append(path.relative_to(ROOT).as_posix())
    offenders += [f"{name}.py in {', '.join(found)}: one name, two jobs?"
                  for name, found in sorted(places.items()) if len(found) > 1
                  and name not in SHARED_MODULE_NAMES | domains]
    assert not offenders, report(offenders, "CONTRIBUTING.md's module names")
