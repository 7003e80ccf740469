"""The contact sheet draws any title and any asset name: line breaks, control characters,
lone surrogates, emoji, right-to-left text, nothing at all (Hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from serpent_tk.plugins.builtin.contact_sheet.plugin import draw_sheet, one_line

texts = st.text(max_size=120) | st.text(st.sampled_from("a \n\r\t\x0b\x0c\x1c\u2028\x85é😀"),
                                        max_size=40)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(title=texts, name=texts)
def test_any_title_and_name_are_drawn_on_one_line(title: str, name: str) -> None:
    picture = Image.new("RGB", (40, 30), (200, 10, 10))
    sheet = draw_sheet([(picture, f"{name}.png"), (None, name)], title, 96, None)
    assert sheet.size == (2 * 16 + 2 * 96 + 12, 16 + 20 + 12 + 96 + 24 + 16)
    assert "\n" not in one_line(title) and "\r" not in one_line(title)


def test_one_line_keeps_words_and_drops_breaks() -> None:
    assert one_line("Skies\nand\r\nsea\t!") == "Skies and sea !"
    assert one_line("\n\n") == ""
