"""Asset resources in both protocol eras: the templates are listed, a read-only credential
reads an asset's metadata (JSON) and its preview (a blob within the output budget), unknown
ids are the protocol's "Resource not found", and the templates' arguments complete."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from PIL import Image

from serpent_tk.automation.caller import Caller
from serpent_tk.mcp.tools.resources import ASSET_TEMPLATE, PREVIEW_TEMPLATE, RESOURCE_NOT_FOUND
from tests.mcp.conftest import Server, connect, run


def library_with_a_picture(server: Server, tmp_path: Path) -> tuple[str, str]:
    picture = tmp_path / "sky.png"
    Image.effect_noise((1600, 1200), 80).convert("RGB").save(picture)  # large: must shrink
    (tmp_path / "libs").mkdir()

    def submit(command: str, args: dict[str, Any]) -> dict[str, Any]:
        answer = server.gateway.submit(command, args, Caller.ui()).result(60)
        assert answer["status"] == "ok", answer
        result: dict[str, Any] = answer["result"]
        return result

    library = str(submit("library.create", {"selectedParentPath": str(tmp_path / "libs"),
                                            "name": "Refs"})["libraryId"])
    asset = str(submit("file.import", {"libraryId": library, "sourcePaths": [str(picture)],
                                       "tags": ["sky"]})["items"][0]["assetId"])
    return library, asset


def test_a_read_only_client_reads_an_asset_and_its_preview(server: Server, era: str,
                                                            tmp_path: Path) -> None:
    library, asset = library_with_a_picture(server, tmp_path)
    server.service.set_output_budget(32)

    async def scenario() -> None:
        async with connect(server.url, server.token("Viewer", "read-only",
                                                    toolset="essentials"), era) as client:
            templates = (await client.list_resource_templates()).resource_templates
            by_uri = {t.uri_template: t for t in templates}
            assert {ASSET_TEMPLATE, PREVIEW_TEMPLATE} <= set(by_uri)
            assert by_uri[ASSET_TEMPLATE].mime_type == "application/json"
            uri = f"serpent://libraries/{library}/assets/{asset}"
            meta = (await client.read_resource(uri)).contents
            assert len(meta) == 1 and isinstance(meta[0], types.TextResourceContents)
            data = json.loads(meta[0].text)
            assert data["id"] == asset and data["tags"] == ["sky"] and data["kind"] == "image"
            preview = (await client.read_resource(uri + "/preview")).contents
            assert len(preview) == 1 and isinstance(preview[0], types.BlobResourceContents)
            assert str(preview[0].mime_type).startswith("image/")
            raw = base64.b64decode(preview[0].blob)
            assert len(preview[0].blob) < 32 * 1024
            with Image.open(io.BytesIO(raw)) as shown:
                assert 48 <= max(shown.size) <= 1024

    run(scenario())


@pytest.mark.parametrize("tail", [
    "assets/ast_00000000000000000000zz", "assets/ast_00000000000000000000zz/preview",
    "assets/not-an-id", "nothing-here"])
def test_what_does_not_exist_is_resource_not_found(server: Server, tail: str,
                                                   tmp_path: Path) -> None:
    library, _asset = library_with_a_picture(server, tmp_path)

    async def scenario() -> None:
        async with connect(server.url, server.token(), "auto") as client:
            for uri in (f"serpent://libraries/{library}/{tail}",
                        f"serpent://libraries/lib_nosuchlibrary/{tail}"):
                with pytest.raises(MCPError) as caught:
                    await client.read_resource(uri)
                assert caught.value.error.code == RESOURCE_NOT_FOUND, caught.value.error
                assert caught.value.error.data == {"uri": uri}
                assert "Resource not found" in caught.value.error.message

    run(scenario())


def test_the_templates_arguments_complete(server: Server, era: str, tmp_path: Path) -> None:
    library, asset = library_with_a_picture(server, tmp_path)

    async def scenario() -> None:
        async with connect(server.url, server.token(), era) as client:
            ref = types.ResourceTemplateReference(uri=ASSET_TEMPLATE)
            ids = await client.complete(ref, {"name": "libraryId", "value": "lib_"})
            assert ids.completion.values == [library]
            by_name = await client.complete(ref, {"name": "assetId", "value": "sky"},
                                            {"libraryId": library})
            assert by_name.completion.values == [asset]
            by_prefix = await client.complete(ref, {"name": "assetId", "value": asset[:8]},
                                              {"libraryId": library})
            assert by_prefix.completion.values == [asset]

    run(scenario())
