"""Cards, flips and the splash table: the game's components as small immutable values."""
from __future__ import annotations

import json
import os
import pkgutil
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from .errors import ParseError, Refusal

NUMBERS = range(1, 13)
MAX = 13
REPEAT = 14
FAMILIES = 9  # seven in the box, two more in the Artists Pack

FLIP_NAMES = {**{n: str(n) for n in NUMBERS}, MAX: "max", REPEAT: "repeat"}
FLIP_CODES = {name: code for code, name in FLIP_NAMES.items()}

SPLASHES_ENV = "DUCKCOVER_SPLASHES"
SPLASHES_FILE = "splashes.json"


class Card(NamedTuple):
    """A duck card. Its family is the seat of its first owner (low blows moves cards between seats)."""

    family: int
    number: int

    def __str__(self) -> str:
        return str(self.number)


# Every card exists once; sharing the instances keeps hashing and comparison cheap.
CARDS: tuple[tuple[Card, ...], ...] = tuple(
    tuple(Card(f, n) if n else None for n in range(13)) for f in range(FAMILIES)  # type: ignore[misc]
)


def flip_name(code: int) -> str:
    return FLIP_NAMES[code]


def parse_flip(text: object) -> int:
    """A record's flip ("1".."12", "max", "repeat") as its code; ParseError (a ValueError) if it is none of those."""
    if isinstance(text, str) and text.lower() in FLIP_CODES:
        return FLIP_CODES[text.lower()]
    value = repr(text)[:60]  # a record's value, quoted (shown escaped by whoever prints it)
    raise ParseError(Refusal("not-a-captain-card", f"{value} is not a captain card (1-12, max or repeat)", value=value))


def user_splashes_path() -> Path:
    """Where a box owner may put a corrected splash table."""
    env = os.environ.get(SPLASHES_ENV)
    if env:
        return Path(env)
    from platformdirs import user_config_dir

    return Path(user_config_dir("duckcover")) / SPLASHES_FILE


def _read_table(text: str, where: str) -> tuple[int, ...]:
    data = json.loads(text)
    table = data["splashes"] if isinstance(data, dict) else data
    if not (isinstance(table, list) and len(table) == 12 and all(type(v) is int and v >= 0 for v in table)):
        raise ValueError(f"{where}: the splash table must be a list of 12 whole numbers >= 0")
    return tuple(table)


@lru_cache(maxsize=1)
def default_splashes() -> tuple[int, ...]:
    """The splash table in force: the user's override if there is one, else the packaged one."""
    path = user_splashes_path()
    if path.is_file():
        return _read_table(path.read_text(encoding="utf-8"), str(path))
    return packaged_splashes()


def packaged_splashes() -> tuple[int, ...]:
    # pkgutil reads package data without importing importlib.resources (and zipfile) at launch;
    # the table lies next to this module, whichever package holds it.
    return _read_table(pkgutil.get_data(__package__, SPLASHES_FILE).decode("utf-8"), SPLASHES_FILE)
