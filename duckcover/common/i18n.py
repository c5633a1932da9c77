"""UI text in English, German and French. Every string the app shows goes through `t()`.

Catalogues are flat JSON files in duckcover/locales/ (`en.json`, `de.json`, `fr.json`),
key -> text with `{name}` placeholders (str.format). English is the reference: a test
checks that every key exists in all three and uses the same placeholders.
"""
from __future__ import annotations

import json
import locale
import os
import pkgutil
from functools import lru_cache

LANGUAGES = ("en", "de", "fr")
DEFAULT = "en"
_current = DEFAULT


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    # pkgutil, not importlib.resources: the same package data, without importing the
    # resources machinery (and zipfile) before the app's first frame.
    return json.loads(pkgutil.get_data("duckcover", f"locales/{lang}.json").decode("utf-8"))


def detect() -> str:
    """The language from the environment (LC_ALL, LC_MESSAGES, LANG), else English."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            code = value.split("_")[0].split(".")[0].lower()
            return code if code in LANGUAGES else DEFAULT
    try:
        code = (locale.getlocale()[0] or "").split("_")[0].lower()
    except ValueError:
        code = ""
    return code if code in LANGUAGES else DEFAULT


def set_language(lang: str) -> None:
    global _current
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r} (choose from {', '.join(LANGUAGES)})")
    _current = lang


def language() -> str:
    return _current


def t(key: str, **values: object) -> str:
    """The text for `key` in the current language (English if missing there), formatted."""
    text = catalogue(_current).get(key) or catalogue(DEFAULT).get(key)
    if text is None:
        raise KeyError(f"no UI text for {key!r}")
    return text.format(**values) if values else text


def singular(count: int, lang: str | None = None) -> bool:
    """Whether `count` things are said in the singular: 1 in English and German, 0 and 1 in French."""
    return count in (0, 1) if (lang or _current) == "fr" else count == 1


# German and French write a decimal comma ("+1,8"); the catalogues cannot, as the figure is
# made in code.
DECIMAL_SEPARATOR = {"en": ".", "de": ",", "fr": ","}


def local_number(value: float, decimals: int = 0, *, signed: bool = False) -> str:
    """`value` as the current language writes it. `signed`: a plus before a positive number (a
    score against another). A figure that rounds to zero has no sign: "+0" beside "minus", or
    "-0.0", reads as a contradiction."""
    digits = f"{abs(value):.{decimals}f}"
    sign = "" if float(digits) == 0 else "-" if value < 0 else "+" if signed else ""
    return sign + digits.replace(".", DECIMAL_SEPARATOR[_current])


def tn(key: str, count: int, **values: object) -> str:
    """`key` said of `count` things: its `.one` form where the language uses the singular."""
    if singular(count) and f"{key}.one" in catalogue(DEFAULT):
        key = f"{key}.one"
    return t(key, count=count, **values)


# --- the player at the keyboard who gave no name ----------------------------------------------
# Shown as "You", "Du" or "Vous"; stored (records, statistics) as the one token YOU, so one
# person stays one player whatever language each game was played in. Records of earlier
# versions stored the word of their session's language: each is read as the same token.
YOU = "You"


def you_words() -> frozenset[str]:
    return frozenset(catalogue(lang).get("seat.you", YOU) for lang in LANGUAGES)


def stored_name(name: str) -> str:
    """The name as records and statistics keep it."""
    return YOU if name in you_words() else name


def shown_name(name: str) -> str:
    """A stored name as the player reads it, in the language of the moment."""
    return t("seat.you") if name in you_words() else name
