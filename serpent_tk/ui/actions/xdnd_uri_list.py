"""A fix for TkDND's X11 drag source (2.9 and the 2.10.3 in tkinterdnd2 0.7): dragged files
arrive as an empty list. Tk thread only (it patches the Tcl interpreter of the window).

TkDND registers its XdndSelection handler for `text/uri-list` with `-format text/uri-list`;
Tk sends any format but STRING/UTF8_STRING/ATOM as a list of 32-bit numbers, so the URI
text becomes `0x0` on the way and the drop target (a file manager, Krita, a browser) gets
nothing (petasis/tkdnd#66, pmgagne/tkinterdnd2#14 report the GTK side of it). TkDND already
answers 16-bit data itself with its `XChangeProperty` command (which writes the property
and sends SelectionNotify); this routes `text/uri-list` the same way: 8-bit, type
`text/uri-list`, CRLF-separated file URIs — what XDND receivers expect (GTK's
`get_uris()` checks that type). Other types still go through TkDND's own handler.
"""

from __future__ import annotations

import tkinter as tk

# the Tcl below is one statement: i18n: not words
PATCH = r"""
namespace eval ::tkdnd::xdnd {
  if {[info commands ::tkdnd::xdnd::_SendData_tkdnd] eq ""} {
    rename ::tkdnd::xdnd::_SendData ::tkdnd::xdnd::_SendData_tkdnd
  }
  proc _SendData {type offset bytes args} {
    variable _dodragdrop_selection_requestor
    if {[string match text/uri-list* $type] && $_dodragdrop_selection_requestor} {
      variable _dodragdrop_types
      variable _dodragdrop_data
      variable _dodragdrop_drag_source
      variable _dodragdrop_selection_property
      variable _dodragdrop_selection_time
      set index [lsearch $_dodragdrop_types $type]
      set files {}
      foreach file [lindex $_dodragdrop_data $index] {
        if {[string match *://* $file]} {lappend files $file} else {lappend files file://$file}
      }
      set text "[join $files \r\n]\r\n"
      set text [encoding convertto utf-8 $text]
      XChangeProperty $_dodragdrop_drag_source $_dodragdrop_selection_requestor \
          $_dodragdrop_selection_property $type 8 $_dodragdrop_selection_time \
          $text [string length $text]
      return -code break
    }
    return [_SendData_tkdnd $type $offset $bytes {*}$args]
  }
}
"""


def patch(interpreter: tk.Misc) -> bool:
    """Apply the fix to this Tk (X11 only; a no-op elsewhere). True when applied."""
    if interpreter.tk.call("tk", "windowingsystem") != "x11":
        return False
    if not interpreter.tk.eval("info commands ::tkdnd::xdnd::_SendData"):  # i18n: not words
        return False
    interpreter.tk.eval(PATCH)
    return True
