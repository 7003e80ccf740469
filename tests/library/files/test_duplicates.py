"""Duplicates worth trusting, through a real worker: the planted set (resized, re-encoded,
brightened, cropped, turned and mirrored copies found; flat colours and decoys never
grouped), the member to
keep, "similar to this asset", colour-swapped copies told apart, and trashing the others as
one undoable step."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from tests.library.factories import call, call_error
from tests.library.pictures import FINISHED
from tests.library.planted import VARIANTS, original, score, write
from tests.waiting import wait_until

pytestmark = pytest.mark.both_kinds  # a local and a studio library

RECALL, PRECISION = 0.95, 0.98


def analysed(host, library_id) -> None:
    task = call(host, library_id, "analysis.run")["task"]
    wait_until(lambda: call(host, library_id, "task.get", {"taskId": task["id"]})["status"]
               in FINISHED, "the analysis")


def every_group(host, library_id, **args) -> list[dict]:
    groups, cursor = [], None
    while True:
        page = call(host, library_id, "asset.find-duplicates",
                    {**args, "limit": 50, **({"cursor": cursor} if cursor else {})})
        groups += page["items"]
        cursor = page["nextCursor"]
        if cursor is None:
            return groups


def test_the_planted_set_is_found_and_nothing_else(host, library_id, tmp_path):
    planted = write(tmp_path / "planted")
    result = call(host, library_id, "file.import", {"sourcePaths": [str(tmp_path / "planted")],
                                                   "keepFolderTree": False})
    assert result["imported"] == len(planted)
    path_of = {i["assetId"]: Path(i["sourcePath"]) for i in result["items"]}
    id_of = {path: asset_id for asset_id, path in path_of.items()}
    analysed(host, library_id)

    groups = every_group(host, library_id)
    found = score(planted, [[path_of[a] for a in g["assetIds"]] for g in groups])
    assert found.recall >= RECALL, found
    assert found.precision >= PRECISION, found
    assert found.groups_of_flats == 0, found
    assert all(found.found_by_variant[v] >= 27 for v in VARIANTS), found  # crops too

    by_original = {g["keep"]: g for g in groups}
    for item in planted:
        if item.variant != "original" or id_of[item.path] not in by_original:
            continue
        group = by_original[id_of[item.path]]  # the original is the one to keep
        assert group["keepReason"] in ("the largest file", "the largest picture (480 x 360)")
        keeper, *others = group["members"]
        assert keeper["assetId"] == group["keep"] and keeper["distance"] == 0
        assert (keeper["width"], keeper["height"]) == (480, 360)
        assert all(m["size"] > 0 and m["width"] and m["addedAt"] for m in others)
        assert group["distance"] == max(m["distance"] for m in others)
        assert sorted(m["assetId"] for m in group["members"]) == group["assetIds"]

    first = id_of[tmp_path / "planted" / "g00-original.png"]
    similar = call(host, library_id, "asset.find-similar", {"assetId": first})
    names = [path_of[m["assetId"]].name for m in similar["items"]]
    assert {"g00-half.jpg", "g00-q30.jpg", "g00-bright.jpg", "g00-rot90.jpg",
            "g00-rot180.jpg", "g00-mirror.jpg"} <= set(names[:7])  # turned ones: 0-2 bits
    distances = [m["distance"] for m in similar["items"]]
    assert distances == sorted(distances)  # closest first
    assert all(n.startswith("g00-") for n in names) and similar["total"] == len(names)
    flat = call(host, library_id, "asset.find-similar",
                {"assetId": id_of[tmp_path / "planted" / "flat-00.png"]})
    assert flat["items"] == [] and flat["note"] is None  # compared: nothing looks like it


def test_colour_swapped_copies_are_not_duplicates_and_trashing_is_one_step(host, library_id,
                                                                          sources):
    picture = original(7)
    picture.save(sources / "warm.png")
    red, green, blue = picture.split()
    Image.merge("RGB", (blue, green, red)).save(sources / "cold.png")  # same shapes
    picture.resize((240, 180)).save(sources / "warm small.jpg", quality=80)
    (sources / "notes.txt").write_text("not a picture")
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources)],
                                                   "keepFolderTree": False})
    ids = {Path(i["sourcePath"]).stem: i["assetId"] for i in result["items"]}
    not_yet = call(host, library_id, "asset.find-similar", {"assetId": ids["warm"]})
    assert not_yet["items"] == [] and "not analysed yet" in not_yet["note"]
    analysed(host, library_id)

    [group] = every_group(host, library_id)
    assert set(group["assetIds"]) == {ids["warm"], ids["warm small"]}  # not the cold one
    assert group["keep"] == ids["warm"] and group["keepReason"].startswith("the largest")
    cold = call(host, library_id, "asset.find-similar", {"assetId": ids["cold"]})
    assert cold["items"] == []
    text = call(host, library_id, "asset.find-similar", {"assetId": ids["notes"]})
    assert text["items"] == [] and "not an image" in text["note"]
    assert call_error(host, library_id, "asset.find-similar",
                      {"assetId": "ast_0000000000zzzzzzzzzzzzzzzz"}).code == "NOT_FOUND"
    loose = call(host, library_id, "asset.find-similar", {"assetId": ids["warm"],
                                                         "maxDistance": 0, "limit": 1})
    assert loose["total"] >= 1 and len(loose["items"]) == 1

    others = [m["assetId"] for m in group["members"] if m["assetId"] != group["keep"]]
    call(host, library_id, "asset.trash", {"assetIds": others})  # the review's one action
    assert every_group(host, library_id) == []
    [step] = call(host, library_id, "history.list", {"limit": 1})["items"]
    assert step["command"] == "asset.trash"
    call(host, library_id, "history.undo")  # one step brings every trashed one back
    assert len(every_group(host, library_id)) == 1


def test_the_turned_hashes_are_those_of_the_turned_pictures() -> None:
    """`phash.turned` derives the seven other orientations' hashes from the picture's own
    DCT: they match the hashes of the pictures really turned and mirrored."""
    from library.worker.files import phash

    upright = (Image.Transpose.FLIP_LEFT_RIGHT, Image.Transpose.FLIP_TOP_BOTTOM,
               Image.Transpose.ROTATE_180)
    sideways = (Image.Transpose.TRANSPOSE, Image.Transpose.ROTATE_90,
                Image.Transpose.ROTATE_270, Image.Transpose.TRANSVERSE)
    for seed in range(8):
        picture = original(seed)
        turns = phash.turned(phash.low_frequencies(phash.grey_pixels(picture)))
        for index, how in enumerate(upright):
            assert (turns[index] ^ phash.phash(picture.transpose(how))).bit_count() <= 2
        for how in sideways:
            hashed = phash.phash(picture.transpose(how))
            assert min((turn ^ hashed).bit_count() for turn in turns[3:]) <= 2
        assert min((turn ^ phash.phash(picture)).bit_count() for turn in turns) > 10
