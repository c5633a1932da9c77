"""UI text in English, German and French. Every string the app shows goes through `t()`.

Catalogues are flat JSON files in duckcover/locales/ (`en.json`, `de.json`, `fr.json`),
key -> text with `{name}` placeholders (str.format). English is the reference: a test
checks that every key exists in all three and uses the same placeholders.
"""
from __future__ import annotations

import json
import locale
import os
from functools import lru_cache
from importlib import resources

LANGUAGES = ("en", "de", "fr")
DEFAULT = "en"
_current = DEFAULT


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    text = resources.files("duckcover").joinpath(f"locales/{lang}.json").read_text(encoding="utf-8")
    return json.loads(text)


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
