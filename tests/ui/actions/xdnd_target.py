"""Another application for the drag-out test: a small Tk window that accepts files dropped on
it (TkDND's XDND drop target, as a file manager or Krita would be) and writes what it got,
as JSON, to the file named on its command line. Run as its own process."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> None:
    out, geometry = Path(sys.argv[1]), sys.argv[2]
    from tkinterdnd2 import COPY, DND_FILES, TkinterDnD

    root = TkinterDnD.Tk()
    root.title("drop target")
    root.geometry(geometry)
    root.configure(background="#335")
    root.drop_target_register(DND_FILES)  # type: ignore[attr-defined]

    def dropped(event: object) -> str:
        files = list(root.tk.splitlist(event.data))  # type: ignore[attr-defined]
        out.write_text(json.dumps({"files": files,
                                   "types": list(event.types)}),  # type: ignore[attr-defined]
                       encoding="utf-8")
        root.after(200, root.destroy)
        return COPY

    root.dnd_bind("<<Drop>>", dropped)  # type: ignore[attr-defined]
    root.update()
    print("ready", root.winfo_rootx(), root.winfo_rooty(), flush=True)
    root.after(60_000, root.destroy)          # never outlive the test
    root.mainloop()


if __name__ == "__main__":
    main()
