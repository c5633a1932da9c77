"""Numbers on the command line. Every numeric option of every command takes its value through
one of these parser types, which know the option's range: a value outside it, or no number at
all (`abc`, `nan`, `inf`, `1e999`), is one line from the parser and exit status 2 before the
command starts. Without an upper bound a value reaches the code and fails there: `serve --port
99999` ended in a traceback from bind(), `arena --hard-limit inf` wrote `Infinity` into JSON."""
from __future__ import annotations

import argparse
import math


def whole(low: int | None = None, high: int | None = None, *, meaning: str = ""):
    """A parser type for a whole number in low..high (either end open when None). `meaning`
    follows the range in the message: " (a table seats 2-7 players)"."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"takes a whole number{_range(low, high)}{meaning}, not {_quoted(text)}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"takes{_range(low, high)}{meaning}, not {_bounded(str(value))}")
        return value
    return parse


def seconds(low: float, high: float, *, above: bool = False, meaning: str = ""):
    """A parser type for a finite number of seconds in low..high; `above`: low itself excluded
    (a time limit of 0 means nothing)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"takes a number of seconds{_range(low, high, above)}{meaning}, not {_quoted(text)}")
        if value > high or value < low or (above and value == low):
            raise argparse.ArgumentTypeError(f"takes{_range(low, high, above)} seconds{meaning}, not {_bounded(_number(value))}")
        return value
    return parse


DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 24 * 3600, "w": 7 * 24 * 3600}


def duration(low: float, high: float):
    """A parser type for a length of time in low..high seconds, written as seconds or with a
    unit: `90`, `90s`, `30m`, `12h`, `7d`, `2w`."""
    def parse(text: str) -> float:
        number, unit = text.strip(), 1
        if number[-1:].lower() in DURATION_UNITS:
            number, unit = number[:-1], DURATION_UNITS[number[-1:].lower()]
        try:
            value = float(number) * unit
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"takes a time of {_number(low)} s to {_number(high // DURATION_UNITS['d'])} days "
                f"(90s, 30m, 12h, 7d, 2w), not {_quoted(text)}")
        return value
    return parse


def _range(low, high, above: bool = False) -> str:
    low_text, high_text = (None if end is None else _number(end) for end in (low, high))
    if above:
        words = f" more than {low_text} and at most {high_text}"
    elif high is None:
        words = f" at least {low_text}" if low is not None else ""
    else:
        words = f" {low_text}-{high_text}" if low is not None else f" at most {high_text}"
    return words


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _bounded(text: str) -> str:
    """At most 40 printable characters of what was given: the refusal stays one short line."""
    from ..common.untrusted import shown

    return shown(text, 40)


def _quoted(text: str) -> str:
    return repr(_bounded(text))


# Shared by `arena` and `review`. More worker processes than any machine has cores only
# crowds it (and --jobs 100000 would start that many); a budget past this takes days a move.
MAX_JOBS = 1024
MAX_BUDGET = 100_000
