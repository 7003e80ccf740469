"""Numbers, sizes and dates in the person's locale: "1,234" or "1.234", "12.4 MB" or
"12,4 MB", "Mar 12, 2026" or "2026年3月12日" (Babel's CLDR data).

Thread-safe (pure functions over a cached locale). The locale is the system's when it
speaks the window's language, or a language the window does not speak (a German system
shows English words with German numbers); when the person chose another language the
window speaks, that language's own formats. Babel is imported on first use (the app warms
it up beside its other imports).
"""

from __future__ import annotations

import functools
from datetime import date, datetime
from typing import TYPE_CHECKING

from serpent_tk.ui.language import translate
from serpent_tk.ui.language.translate import _, ngettext

if TYPE_CHECKING:
    from babel import Locale

# the formats of each language the window speaks, when the system's are another language's
OWN_FORMATS = {translate.ENGLISH: "en", translate.CHINESE: "zh_Hans_CN"}


def locale() -> Locale:
    """The locale numbers and dates are written in now."""
    return _locale_for(translate.current())


@functools.lru_cache(maxsize=8)
def _locale_for(language: str) -> Locale:
    from babel import Locale, UnknownLocaleError

    own = Locale.parse(OWN_FORMATS.get(language, "en"))
    for tag in translate._system_tags():
        name = tag.replace("-", "_").split(".")[0].split("@")[0]
        if not name or name in ("C", "POSIX"):
            continue
        try:
            system = Locale.parse(name)
        except (UnknownLocaleError, ValueError, TypeError):
            continue
        spoken = {code.split("_")[0] for code in translate.LANGUAGES}
        if system.language == own.language or system.language not in spoken:
            return system
        return own
    return own


def number(value: int | float) -> str:
    """A whole number with the locale's grouping: "1,234"."""
    from babel.numbers import format_decimal

    return str(format_decimal(value, locale=locale()))


def decimal(value: float, digits: int = 1) -> str:
    """`value` with `digits` decimals: "12.4" ("12,4" in German)."""
    from babel.numbers import format_decimal

    return str(format_decimal(round(value, digits), format=f"#,##0.{'0' * digits}",
                              locale=locale()))


def size(num_bytes: int | None) -> str:
    """Decimal units, one decimal place: "999 bytes", "1.0 KB", "12.4 MB", "3.2 GB"; ""
    when unknown."""
    if num_bytes is None:
        return ""
    value = float(num_bytes)
    if value < 1000:
        return ngettext("{n} byte", "{n} bytes", int(value)).format(n=number(int(value)))
    for unit in ("KB", "MB", "GB"):
        value /= 1000
        if value < 1000 or unit == "GB":
            return _("{number} {unit}").format(number=decimal(value), unit=unit)
    return ""  # not reached: GB takes every size left


def day(moment: date | datetime) -> str:
    """A date: "Mar 12, 2026", "12 Mar 2026", "2026年3月12日"."""
    from babel.dates import format_skeleton

    return str(format_skeleton("yMMMd", moment, locale=locale()))


def day_and_time(moment: datetime) -> str:
    """A date and a time of day: "Mar 12, 2026, 6:30 PM", "2026年3月12日 18:30"."""
    from babel.dates import format_time

    time_of_day = str(format_time(moment, "short", locale=locale()))
    return _("{date}, {time}").format(date=day(moment), time=time_of_day)


def warm_up() -> None:
    """Import Babel and read this locale's data now (a background thread at start), so the
    first number the window writes does not wait for them."""
    number(1234)
    day(date.today())
