"""Models of the commands behind plugin analysers: which assets an analyser has still to look
at, and recording what it found (the text in a picture). Internal: called by Serpent's
plugin analysers feeder for a plugin, never offered to AI clients."""

from typing import Annotated

from pydantic import Field

from library.schemas.common import AssetId, AssetKind, Model

__all__ = ["AnalyserName", "AnalyserPendingIn", "AnalyserPendingOut", "AnalyserRecordIn",
           "AnalyserRecordOut", "MAX_FOUND_TEXT"]

MAX_FOUND_TEXT = 20_000  # characters of found text kept per asset and source
AnalyserName = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{0,30}/[a-z0-9-]{1,30}$",
                                    description="<plugin id>/<analyser>: ocr-text/read-text.")]


class AnalyserPendingIn(Model):
    """Assets (not in the trash) of these kinds the analyser has not looked at in this
    version, in id order after `after`."""

    analyser: AnalyserName
    version: int = Field(ge=1, le=1_000_000)
    kinds: Annotated[list[AssetKind], Field(min_length=1, max_length=9)]
    asset_ids: Annotated[list[AssetId], Field(max_length=1000)] | None = Field(
        default=None, description="Only among these (the assets of an import).")
    after: AssetId | None = None
    limit: int = Field(default=100, ge=1, le=500)


class AnalyserPendingOut(Model):
    asset_ids: list[str]
    more: bool = Field(description="More are pending after the last one.")


class AnalyserRecordIn(Model):
    """What the analyser found: text per asset (\"\" for none), and those it could not read."""

    analyser: AnalyserName
    version: int = Field(ge=1, le=1_000_000)
    found: Annotated[dict[str, Annotated[str, Field(max_length=MAX_FOUND_TEXT)]],
                     Field(max_length=500)] = Field(default_factory=dict)
    failed: Annotated[list[AssetId], Field(max_length=500)] = Field(default_factory=list)


class AnalyserRecordOut(Model):
    recorded: int
    changed: list[str] = Field(description="Assets whose found text changed.")
