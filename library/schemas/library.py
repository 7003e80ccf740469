"""Models of the library-level and global library commands."""

from datetime import datetime
from typing import Annotated

from pydantic import Field, model_validator

from library.schemas.common import EntityName, Model, Page

__all__ = [
    "LibraryInfoOut", "LibraryChangeSequenceOut", "LibraryCreateIn", "LibraryOpenIn",
    "LibraryRenameIn", "LibraryExportIn", "LibraryImportExportedIn", "LibraryRefreshOut",
    "LibraryRef", "LibraryListOut", "LibraryPath", "LibraryExportOut",
    "LibraryDeleteFromDiskOut", "LibraryDeleteFromDiskIn", "LibraryRepairIn", "LibraryRepairOut",
    "RepairedTable", "LibraryMoveToStudioIn", "LibraryMoveToStudioOut",
]

LibraryPath = Annotated[str, Field(min_length=1, max_length=4096)]


class LibraryRef(Model):
    library_id: str
    name: str
    path: str
    open: bool = True


class LibraryListOut(Page):
    items: list[LibraryRef]


class LibraryInfoOut(Model):
    library_id: str
    name: str
    path: str
    change_sequence: int
    schema_version: int
    asset_count: int
    trashed_count: int
    folder_count: int
    tag_count: int
    collection_count: int
    total_bytes: int
    created_at: datetime


class LibraryChangeSequenceOut(Model):
    change_sequence: int


class LibraryCreateIn(Model):
    """Create `<name>.serpent` inside `selectedParentPath` and open it."""

    selected_parent_path: LibraryPath = Field(description="The folder to create it in.")
    name: EntityName = Field(description="The library's name.")
    database: str | None = Field(
        default=None, max_length=2000,
        description="A studio library shared by several people: an empty PostgreSQL "
                    "database, postgresql://user@host/db (no password in it).")


class LibraryOpenIn(Model):
    path: LibraryPath = Field(description="A `.serpent` library folder.")


class LibraryRenameIn(Model):
    name: EntityName = Field(description="The new name.")


class LibraryExportIn(Model):
    target_path: LibraryPath = Field(description="Where to write the `.zip` archive.")


class LibraryImportExportedIn(Model):
    archive_path: LibraryPath = Field(description="The .zip from an export.")
    selected_parent_path: LibraryPath = Field(description="The folder to unpack it in.")
    idempotency_key: str | None = Field(
        default=None, min_length=1, max_length=200,
        description="Optional: a retry with the same key opens the library the first call "
                    "made instead of unpacking again.")


class LibraryRefreshOut(Model):
    integrity: str = Field(default="ok", description="SQLite's quick check of the database "
                           "(`ok`; a damaged database fails the refresh instead).")
    checked: int = Field(description="Asset records checked against the files on disk.")
    missing_files: int = Field(description="Assets whose file is gone (flagged `missing`; "
                               "the records are kept).")
    thumbnails_rebuilt: int
    orphans_moved: int = Field(description="Files in the store no asset points at, moved to "
                               "`.orphans/` inside the library (never deleted).")
    missing_asset_ids: list[str] = Field(default_factory=list, description="The first "
                                         "missing ones.")
    files_back: int = Field(default=0, description="Assets flagged missing whose file is "
                            "there again (flag cleared).")
    damaged_files: int = Field(default=0, description="Files whose size differs from the "
                               "record (reported, left alone).")
    damaged_asset_ids: list[str] = Field(default_factory=list)
    orphans_folder: str | None = Field(default=None, description="Where the orphans went, "
                                       "relative to the library folder.")
    thumbnails_failed: int = Field(default=0, description="Images whose thumbnail could not "
                                   "be made (damaged files).")
    thumbnails_removed: int = Field(default=0, description="Stale thumbnails of content no "
                                    "longer in the library, removed.")
    cancelled: bool = False
    task_id: str | None = Field(default=None, description="The task this refresh ran as.")


class LibraryExportOut(Model):
    path: str = Field(description="The archive that was written.")
    asset_count: int
    bytes: int = Field(description="Size of the archive.")
    files: int = Field(default=0, description="Files in the archive (database included).")
    task_id: str | None = Field(default=None, description="The task this export ran as.")


class LibraryDeleteFromDiskIn(Model):
    """Delete the library's whole folder from disk (dangerous: two calls, see the challenge)."""

    state_token: str | None = Field(default=None, max_length=200, description="From the "
                                    "plan; refused with STALE_PLAN if the library changed.")


class LibraryDeleteFromDiskOut(Model):
    deleted: bool
    asset_count: int
    freed_bytes: int


class LibraryMoveToStudioIn(Model):
    """Make this library a studio library in its own folder (dangerous: two calls)."""

    database: str = Field(max_length=2000, description="Empty PostgreSQL database URI, "
                          "no password.")
    state_token: str | None = Field(default=None, max_length=200, description="From the "
                                    "plan; refused with STALE_PLAN if the library changed.")


class LibraryMoveToStudioOut(Model):
    library_id: str = Field(description="The same id as before.")
    path: str
    database: str
    asset_count: int
    set_aside: str = Field(description="Where the local database file is kept.")
    task_id: str | None = None


class LibraryRepairIn(Model):
    """Recover a damaged library (LIBRARY_DAMAGED) into a new library beside it."""

    path: LibraryPath | None = Field(default=None, description="Its folder.")
    library_id: str | None = Field(default=None, min_length=1, max_length=64,
                                   description="Or its id, if open.")

    @model_validator(mode="after")
    def _one_of_them(self) -> "LibraryRepairIn":
        if (self.path is None) == (self.library_id is None):
            raise ValueError("give either path or libraryId")
        return self


class RepairedTable(Model):
    recovered: int = Field(description="Rows carried into the new library.")
    dropped: int = Field(description="Rows read but left out (they broke a rule of the "
                         "library or pointed at something lost).")
    damaged_spots: int = Field(description="Places where rows could not be read (0: the whole "
                               "table was read).")
    unreadable: bool = Field(description="Nothing of the table could be read.")


class LibraryRepairOut(Model):
    library_id: str = Field(description="The new library, open now.")
    name: str
    path: str
    open: bool = True
    damaged_path: str = Field(description="The damaged library, left exactly as it was.")
    complete: bool = Field(description="Everything was read: nothing was lost.")
    summary: str = Field(description="What was recovered, in a sentence for the person.")
    assets: int = Field(description="Assets in the new library.")
    files_adopted: int = Field(description="Stored files whose record was lost, added again as "
                               "assets named \"Recovered …\" in the folder \"Recovered files\".")
    files_copied: int = Field(description="Stored files carried over (hard links where the "
                              "disk allows, else copies).")
    rows_dropped: int
    tables: dict[str, RepairedTable] = Field(description="What became of each table.")
