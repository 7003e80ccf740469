"""Previews on every core, through a real worker: an import's previews are made in the
background as it goes (asset.preview-status counts them, a `previews` task reports its
progress and can be cancelled), and a thumbnail the window asks for is made ahead of that
queue. No timings are judged: only what is done before what."""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from library.events import TaskProgress
from library.worker.files import background, previews
from library.worker.services import Services
from library.worker.store.layout import Layout
from tests.library.factories import call
from tests.library.pictures import picture, previews_made, save_pictures
from tests.waiting import wait_until


def slow_pictures(folder: Path, count: int) -> list[Path]:
    """Big PNGs (PNG has no reduced decoding): each preview takes a while to make. One
    picture, made distinct by bytes after its end (decoders stop at IEND)."""
    folder.mkdir(parents=True, exist_ok=True)
    first = folder / "big 00.png"
    picture(99, (4000, 3000)).save(first, compress_level=1)
    data = first.read_bytes()
    paths = [first]
    for n in range(1, count):
        paths.append(folder / f"big {n:02d}.png")
        paths[-1].write_bytes(data + n.to_bytes(4, "big"))
    return paths


def test_an_imports_previews_are_made_in_the_background(host, library_id, sources, events):
    paths = save_pictures(sources, list(range(20)))
    (sources / "notes.txt").write_text("no picture")
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})
    status = previews_made(host, library_id)
    assert status["counts"] == {"ready": 20, "queued": 0, "pending": 0, "failed": 0,
                                "unsupported": 1}
    made = [e for e in events.of(TaskProgress) if e.kind == "previews"]
    assert made and made[-1].done == made[-1].total == 20 and made[-1].task_id
    assert {e.task_id for e in made} == {made[-1].task_id}  # one task for the whole import
    assert {e.command for e in made} == {""}  # no command runs it: the kind says what it is
    task = call(host, library_id, "task.get", {"taskId": made[-1].task_id})
    assert (task["kind"], task["status"], task["result"]) == ("previews", "done",
                                                             {"made": 20, "failed": 0})
    assert all(t["kind"] != "previews" for t in call(host, library_id, "task.list")["items"])
    ids = [i["assetId"] for i in result["items"] if i["assetId"]]
    per_asset = call(host, library_id, "asset.preview-status", {"assetIds": ids})
    assert set(per_asset["items"].values()) == {"ready", "unsupported"}
    assert len(paths) == 20


def test_what_the_window_shows_is_made_before_the_queue(host, library, sources):
    library_id, root = library["libraryId"], Path(library["path"])
    paths = slow_pictures(sources, 40)
    result = call(host, library_id, "file.import", {"sourcePaths": [str(p) for p in paths]})
    previews_made(host, library_id)
    for made in (root / "thumbs").rglob("*.jpg"):
        made.unlink()  # as if the size cap had evicted them: analysis makes them again
    task = call(host, library_id, "analysis.run", {"force": True})["task"]  # a long queue
    wait_until(lambda: call(host, library_id, "task.get", {"taskId": task["id"]})["done"],
               "the analysis to be under way")
    last = max(i["assetId"] for i in result["items"])  # analysed last (id order)
    shown = call(host, library_id, "asset.thumbnail", {"assetId": last, "size": 512})
    assert (shown["width"], shown["height"]) == (512, 384)
    now = call(host, library_id, "task.get", {"taskId": task["id"]})
    assert now["status"] == "running" and now["done"] < now["total"], now  # it jumped ahead
    wait_until(lambda: call(host, library_id, "task.get", {"taskId": task["id"]})[
        "status"] == "done", "the analysis")


def test_the_previews_task_can_be_cancelled(host, library_id, sources, events):
    paths = slow_pictures(sources, 80)
    importing = host.call(library_id, "file.import", {"sourcePaths": [str(p) for p in paths]})
    first = events.wait_for(lambda e: isinstance(e, TaskProgress) and e.kind == "previews")
    cancelled = call(host, library_id, "task.cancel", {"taskId": first.task_id})
    assert cancelled["status"] == "cancelled" and cancelled["kind"] == "previews"
    assert importing.result(60)["imported"] == 80  # the import itself goes on
    status = previews_made(host, library_id)
    assert status["counts"]["ready"] < 80 and status["counts"]["pending"] > 0
    ended = call(host, library_id, "task.get", {"taskId": first.task_id})
    assert ended["status"] == "cancelled" and ended["result"]["made"] < 80
    pending = [a for a, s in call(host, library_id, "asset.preview-status", {"assetIds": [
        i["id"] for i in call(host, library_id, "asset.search", {"limit": 80})["items"]]})[
        "items"].items() if s == "pending"]
    call(host, library_id, "asset.thumbnail", {"assetId": pending[0]})  # still on request
    assert call(host, library_id, "asset.preview-status", {"assetIds": [pending[0]]})[
        "items"][pending[0]] == "ready"


def _nice_values(pid: int) -> list[int]:
    """The nice value of each thread of a process (Linux: /proc/<pid>/task/<tid>/stat)."""
    values = []
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # the thread ended meanwhile
        values.append(int(fields[16]))  # field 19 of stat(5); the list starts at field 3
    return values


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice: Linux")
def test_the_pools_threads_give_way_to_the_import(host, library_id, sources):
    save_pictures(sources, [1, 2])
    call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})
    previews_made(host, library_id)
    pid = host.worker_pid(library_id)
    assert pid is not None
    normal = os.getpriority(os.PRIO_PROCESS, pid)  # the worker's main thread
    if normal >= background.NICE:
        pytest.skip("the tests run at a low priority already: nothing to lower")
    # each pool thread lowers itself as it starts: every one has started by now, but wait
    # on the condition rather than on that
    values = wait_until(lambda: (lambda found: found if found.count(background.NICE)
                                 == previews.LOWERED else None)(_nice_values(pid)),
                        "the pool's threads at the lower priority")
    assert values.count(normal) >= 2, values  # the rest (the writer, the readers...) as before


@pytest.fixture
def pool(tmp_path: Path) -> Iterator[previews.PreviewPool]:
    """A preview pool of its own, without a worker around it (its threads are what is
    looked at)."""
    started = previews.PreviewPool(Services(layout=Layout(tmp_path / "Pool.serpent"),
                                            library_id="lib_pool", emit=lambda event: None,
                                            writer=sqlite3.connect(":memory:")))
    yield started
    started.stop()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice: Linux")
def test_an_imports_previews_are_made_at_the_normal_priority_once_its_copying_ends(pool):
    """While an import copies, its previews are made by the lowered threads; once the
    copying ends (before the import has made its last batch durable and recorded it), the
    person waits for the rest, and threads at the normal priority make them (lowered, they
    got almost nothing on a busy machine). Analysis stays lowered."""

    def nice() -> int:  # of the pool thread that runs it
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    normal = nice()
    if normal >= background.NICE:
        pytest.skip("the tests run at a low priority already: nothing to lower")
    with pool.importing() as copying:
        while_copying = pool.submit(nice, previews.IMPORTED).result(60)
        copying.copied()  # the import goes on: its last batch is being recorded
        after_copying = pool.submit(nice, previews.IMPORTED).result(60)
    after_import = pool.submit(nice, previews.IMPORTED).result(60)
    analysis = pool.submit(nice, previews.ANALYSIS).result(60)
    assert while_copying == background.NICE
    assert after_copying == after_import == normal
    assert analysis == background.NICE


def test_small_pictures_previews_start_when_the_copying_ends(pool):
    """A small picture's preview waits for the import's copying (it is mostly Python, which
    would take the GIL from the copying), not for the import's last records."""
    with pool.importing() as copying:
        small = pool.submit(lambda: "made", previews.IMPORTED, after_imports=True)
        large = pool.submit(lambda: "made", previews.IMPORTED)
        assert large.result(60) == "made"
        assert not small.done()  # held while the copying goes on
        copying.copied()
        assert small.result(60) == "made"  # before the import ends
