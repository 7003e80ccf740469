"""MCP prompts: whole jobs the person picks (slash commands) that tell the agent which tools to
call, in which order, always with an explicit `libraryId` (docs/contracts.md §7), with completion
of their arguments (open libraries, the library's tags).

Runs on the listener loop. A prompt needs every tool its text names: a credential whose mode or
toolset hides one of them is not offered the prompt (prompts/get answers it like an unknown
one). The library argument takes a name or an id; with one library open it may be left out.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from serpent_tk.automation.envelope import Envelope, result_of
from serpent_tk.automation.registry import Registry, tool_name_for
from serpent_tk.mcp.tools.catalogue import COMMAND_MENTION, agent_text

# (command, arguments) -> the envelope, as the calling credential
Submit = Callable[[str, dict[str, Any]], Awaitable[Envelope]]
MAX_COMPLETIONS = 100  # the protocol's cap on values per answer
SHEET = 36  # assets per contact sheet (asset.thumbnail's assetIds)


@dataclass(frozen=True)
class Argument:
    name: str
    description: str
    required: bool = False
    completes: str = ""  # "library" (open libraries) or "tag" (the library's tags)


@dataclass(frozen=True)
class Job:
    """What a prompt's text is made from: the library it works on, its other arguments, and
    the duplicates tool's distance scale (`distance_scale`)."""

    library_id: str
    library_name: str
    arguments: dict[str, str]
    scale: tuple[int, int, str] = (0, 0, "")  # (default, largest, meaning); see Prompts.get

    def arg(self, name: str, default: str = "") -> str:
        return (self.arguments.get(name) or default).strip()

    def call(self, command: str, **args: Any) -> str:
        """One tool call as the text shows it: `asset.search {"libraryId": ..., ...}`."""
        return f"{command} " + json.dumps({"libraryId": self.library_id, **args},
                                          ensure_ascii=False)


LIBRARY = Argument("library", "The library's name or libraryId (optional with one library "
                   "open).", completes="library")


def tag_untagged(job: Job) -> str:
    vocabulary = job.arg("vocabulary")
    prefer = (f" Prefer these tags where they fit: {vocabulary}." if vocabulary else "")
    most = job.arg("max", "1000")
    return f"""Tag the untagged pictures of the Serpent library “{job.library_name}” by looking \
at them, with your own eyes on contact sheets. Pass "libraryId": "{job.library_id}" explicitly \
in every call; nothing is remembered between calls.

1. {job.call("tag.list", sort="count", limit=200)} shows the tags already in use. Reuse them, \
spelled the same, rather than inventing near-duplicates.{prefer}
2. {job.call("asset.search", untagged=True, kind=["image"], limit=SHEET)} gives the next page \
of untagged pictures (if total is 0 there is nothing to do).
3. {job.call("asset.thumbnail", assetIds=["<the ids of that page>"])} returns one contact \
sheet. Every picture on it carries a number; the answer's items map each number (index) to \
its assetId and name.
4. Choose 2 to 5 tags per picture from what it shows (subject, setting, colours, style). Then \
tag the whole page in one call: {job.call("asset.tag", tagsByAsset={"<assetId>": ["<tag>"]})}. \
Leave out a picture you cannot make out (status no_preview or file_missing) instead of guessing.
5. Repeat from step 2 with "cursor" set to the search's nextCursor (tagged pictures drop out of \
the search, skipped ones are not shown again) until there is no nextCursor, or {most} pictures \
are tagged.
6. Tell the person what you did: ui.notify {{"text": "<one line>"}} (it takes no libraryId). \
Everything can be undone with history.undo."""


def file_import(job: Job) -> str:
    since = job.arg("since")
    window = (f"addedAfter: \"{since}\"" if since else
              "the newest first; the latest import is the run of assets whose addedAt lie close "
              "together at the top (an import takes seconds to minutes): stop at the first gap "
              "of more than an hour")
    return f"""File the latest import of the Serpent library “{job.library_name}” into \
folders. Pass "libraryId": "{job.library_id}" explicitly in every call.

1. {job.call("folder.list")} shows the folders there are (names, parentId, assetCount).
2. {job.call("asset.search", unfiled=True, sort="added-desc", limit=100)} lists the assets in \
no folder, {window}. Page on with nextCursor if the import is larger.
3. Look at them in pages of up to {SHEET}: {job.call("asset.thumbnail", assetIds=["<ids>"])} \
(a numbered contact sheet; items map numbers to assetIds). Names and tags help too.
4. Sort them into the existing folders; create a folder only where none fits: \
{job.call("folder.create", name="<name>")} (with "parentId" to nest it).
5. File each group with one call per folder: \
{job.call("asset.move", assetIds=["<ids>"], folderId="<folder id>")}.
6. Show the person the result with {job.call("library.show-in-desktop", folderId="<a folder>")} \
and say in one line what went where. history.undo takes back any step."""


DUPLICATES = "asset.find-duplicates"
NO_SCALE = (0, 0, "")


def distance_scale(registry: Registry) -> tuple[int, int, str]:
    """asset.find-duplicates' own maxDistance: its default, its largest value and what its
    numbers mean (the prompt says exactly what the tool says)."""
    spec = registry.get(DUPLICATES)
    assert spec is not None, "the review-duplicates prompt needs asset.find-duplicates"
    info = spec.input_model.model_fields["max_distance"]
    most = next(m.le for m in info.metadata if getattr(m, "le", None) is not None)
    return int(info.default), int(most), str(info.description)


def review_duplicates(job: Job) -> str:
    default, most, _scale = job.scale
    given = job.arg("maxDistance")
    distance = min(int(given), most) if given.isdigit() else default
    return f"""Review the duplicate pictures of the Serpent library “{job.library_name}” and \
move the weaker copies to the trash. Pass "libraryId": "{job.library_id}" explicitly in every \
call.

1. {job.call(DUPLICATES, maxDistance=distance)} lists groups of near-identical pictures \
(assetIds oldest first; keep is the one that looks best to keep). If notAnalysed is more than \
0, say so: those assets are not compared yet. Page on with nextCursor.
2. For each group: {job.call("asset.get", assetIds=["<the group's ids>"])} (size, width, \
height, rating, tags, notes, folders) and \
{job.call("asset.thumbnail", assetIds=["<the group's ids>"])} to compare them side by side.
3. Keep the best copy: the largest, sharpest, highest rated, with the most tags and notes; \
when in doubt the oldest. Give the kept one the tags of the others: \
{job.call("asset.tag", assetIds=["<kept id>"], tags=["<their tags>"])}.
4. Before trashing, list per group what you keep and what goes, and ask the person to agree.
5. Then {job.call("asset.trash", assetIds=["<the weaker copies>"])}, one call for all groups. \
The trash keeps them (asset.restore brings any back) and history.undo undoes it."""


def curate_collection(job: Job) -> str:
    theme = job.arg("theme", "the best pictures")
    name = job.arg("name", theme[:60].capitalize())
    size = job.arg("size", "20")
    return f"""Curate a hand-picked collection “{name}” about {theme} in the Serpent library \
“{job.library_name}”: pick, order and annotate about {size} assets. Pass "libraryId": \
"{job.library_id}" explicitly in every call.

1. {job.call("collection.list")}: if “{name}” exists (not smart), add to it; else create it \
with {job.call("collection.create", name=name)}.
2. Find candidates: {job.call("asset.search", text="<words>", tags=["<tags>"], limit=50)} (also \
ratingMin, kind, folderId), a few searches if needed.
3. Look at them in pages of up to {SHEET} with \
{job.call("asset.thumbnail", assetIds=["<ids>"])}; pick the strongest and most varied ones.
4. Decide their order (an opening picture, then a flow), then add them in exactly that order: \
{job.call("collection.members", collectionId="<id>", add=["<ids in order>"])}. A hand-picked \
collection keeps the order assets were added in; to reorder, remove them and add them again.
5. Write a short note on why each one is in: \
{job.call("asset.update", assetId="<id>", notes="<note>")}; give the same rating to many at \
once with {job.call("asset.update", assetIds=["<ids>"], rating=5)}.
6. Show it: {job.call("library.show-in-desktop", assetIds=["<the picked ids>"])}."""


@dataclass(frozen=True)
class PromptSpec:
    name: str
    title: str
    description: str
    arguments: tuple[Argument, ...]
    text: Callable[[Job], str]


PROMPTS: tuple[PromptSpec, ...] = (
    PromptSpec("tag-untagged", "Tag untagged pictures",
               "Look at the untagged pictures on contact sheets and tag them, a page at a time.",
               (LIBRARY, Argument("vocabulary", "Tags to prefer, comma separated.",
                                  completes="tag"),
                Argument("max", "Stop after this many pictures (default 1000).")),
               tag_untagged),
    PromptSpec("file-latest-import", "File the latest import",
               "Sort the newest imported assets into folders, making folders where needed.",
               (LIBRARY, Argument("since", "Only assets added after this ISO date-time.")),
               file_import),
    PromptSpec("review-duplicates", "Review duplicates",
               "Compare near-identical pictures and move the weaker copies to the trash.",
               (LIBRARY, Argument("maxDistance", "How alike, as the duplicates tool counts: "
                                                 "{scale} Default {default}.")),
               review_duplicates),
    PromptSpec("curate-collection", "Curate a collection",
               "Pick, order and annotate assets on a theme in a hand-picked collection.",
               (LIBRARY, Argument("theme", "What the collection is about.", required=True,
                                  completes="tag"),
                Argument("name", "The collection's name (default: from the theme)."),
                Argument("size", "About how many assets (default 20).")),
               curate_collection),
)


def commands_named(text: str, known: Collection[str]) -> set[str]:
    """The commands a prompt's text names (dotted), i.e. the tools it needs."""
    return {m.group(0) for m in COMMAND_MENTION.finditer(text) if m.group(0) in known}


SAMPLE = Job("lib_sample0001", "Sample", {})


class Prompts:
    """prompts/list, prompts/get and completion/complete for one server instance."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def needs(self, prompt: PromptSpec) -> set[str]:
        return commands_named(prompt.text(SAMPLE), self.registry.commands)

    def offered(self, listed: Collection[str]) -> list[PromptSpec]:
        """The prompts whose every tool is in `listed` (the tool names a credential sees)."""
        return [p for p in PROMPTS
                if all(tool_name_for(name) in listed for name in self.needs(p))]

    def as_mcp(self, prompt: PromptSpec) -> types.Prompt:
        return types.Prompt(name=prompt.name, title=prompt.title,
                            description=prompt.description,
                            arguments=[types.PromptArgument(name=a.name,
                                                            description=self.described(a),
                                                            required=a.required or None)
                                       for a in prompt.arguments])

    def described(self, argument: Argument) -> str:
        """An argument's description, with the duplicates tool's own scale where it says so."""
        if "{scale}" not in argument.description:
            return argument.description
        default, _most, scale = distance_scale(self.registry)
        return argument.description.format(scale=scale, default=default)

    def find(self, name: str, listed: Collection[str]) -> PromptSpec:
        for prompt in self.offered(listed):
            if prompt.name == name:
                return prompt
        raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {name[:100]}")

    async def get(self, prompt: PromptSpec, arguments: dict[str, str],
                  submit: Submit) -> types.GetPromptResult:
        for argument in prompt.arguments:
            if argument.required and not (arguments.get(argument.name) or "").strip():
                raise MCPError(types.INVALID_PARAMS,
                               f"The prompt {prompt.name} needs the argument {argument.name}.")
        library_id, name = await resolve_library(arguments.get("library", ""), submit)
        scale = distance_scale(self.registry) if self.registry.get(DUPLICATES) else NO_SCALE
        job = Job(library_id, name, arguments, scale)
        text = agent_text(prompt.text(job), self.registry.commands)
        return types.GetPromptResult(description=prompt.description, messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text",
                                                                       text=text))])

    async def complete(self, prompt: PromptSpec, argument: str, value: str,
                       context: dict[str, str], submit: Submit) -> list[str]:
        wanted = next((a for a in prompt.arguments if a.name == argument), None)
        if wanted is None or not wanted.completes:
            return []
        if wanted.completes == "library":
            return await library_completions(value, submit)
        try:
            library_id, _ = await resolve_library(context.get("library", ""), submit)
        except MCPError:
            return []
        return await tag_completions(library_id, value, submit)


async def open_libraries(submit: Submit) -> list[dict[str, Any]]:
    answer = await submit("library.list-open", {})
    items: list[dict[str, Any]] = (result_of(answer) or {}).get("items", [])
    return items


async def resolve_library(given: str, submit: Submit) -> tuple[str, str]:
    """(libraryId, name) of the open library `given` names (an id, or a name in any case);
    the only open one when `given` is empty."""
    libraries = await open_libraries(submit)
    given = given.strip()
    if not given and len(libraries) == 1:
        return str(libraries[0]["libraryId"]), str(libraries[0]["name"])
    for library in libraries:
        if given and (given == library["libraryId"] or
                      given.casefold() == str(library["name"]).casefold()):
            return str(library["libraryId"]), str(library["name"])
    names = ", ".join(f"“{lib['name']}” ({lib['libraryId']})" for lib in libraries) or "none"
    what = f"No open library is called {given[:100]!r}" if given else "Say which library"
    raise MCPError(types.INVALID_PARAMS, f"{what}; open ones: {names}.")


async def library_completions(value: str, submit: Submit) -> list[str]:
    """Open libraries' names (and ids) starting with `value`, any case."""
    start = value.strip().casefold()
    found: list[str] = []
    for library in await open_libraries(submit):
        for candidate in (str(library["name"]), str(library["libraryId"])):
            if candidate.casefold().startswith(start) and candidate not in found:
                found.append(candidate)
    return found[:MAX_COMPLETIONS]


async def tag_completions(library_id: str, value: str, submit: Submit) -> list[str]:
    """The library's tags starting with the last comma-separated part of `value`, most used
    first."""
    last = value.rsplit(",", 1)[-1].strip()
    answer = await submit("tag.list", {"libraryId": library_id, "prefix": last or None,
                                       "sort": "count", "limit": MAX_COMPLETIONS})
    items = (result_of(answer) or {}).get("items", [])
    return [str(item["name"]) for item in items][:MAX_COMPLETIONS]
