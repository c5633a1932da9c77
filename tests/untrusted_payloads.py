"""The hostile inputs of issue 10, shared by the tests of every surface that shows untrusted text.

Each payload is a player's name (or a Madness sound) in a record, on the command line or at the
table. Whatever surface shows it must show `visible(payload)`: the text itself, control
characters as visible placeholders, cut to the name's bound. Never markup applied, never an
escape byte of the payload on the terminal, never an action, never a traceback.
"""
from __future__ import annotations

import os
import select
import time

from duckcover.common.untrusted import NAME_MAX, shown
from duckcover.players.harness import play_game
from duckcover.saves.record import to_record

ESCAPES = [
    "\x1b]0;pwned\x07Gwen",  # window title (OSC)
    "\x1b]52;c;aGk=\x07Clip",  # clipboard write (OSC 52)
    "\x1b[2J\x1b[HBob",  # clear the screen (CSI)
    "Ann\nWinner: Eve",  # a forged line of output
    "\u202eevE",  # bidi override
    "\x9b31mC1",  # C1 CSI
    "del\x7fte",
]
MARKUPS = [
    "[/]",
    "[@click=app.quit]",
    "[@click=app.screenshot('victim.txt','.')]Gwen[/]",
    "[link=file:///etc/passwd]x[/link]",
    "[link=file:///]x",
    "[AFK] Bob",
    "[b]Gwen[/b]",
    "[@click=quit]Q",
    "a\\[b]c",
]
SURROGATE = "Jos\udce9"  # `--name $'Jos\xe9'`: a byte that is not UTF-8, as Python passes it
BIG = "x" * 1_000_000
PAYLOADS = ESCAPES + MARKUPS + [SURROGATE, BIG]

# The bytes a payload would send to a terminal if it got through raw.
RAW_MARKERS = ["\x1b]0;pwned", "\x1b]52", "\x1b[2J", "\u202e", "\x9b", "\x7f", "\udce9", "\nWinner: Eve"]


def visible(payload: str, limit: int = NAME_MAX) -> str:
    """What a surface shows of `payload` as a name."""
    return shown(payload, limit)


def tables(payloads: list[str], size: int = 4) -> list[list[str]]:
    """The payloads in groups of `size` distinct names (one table each)."""
    groups, group = [], []
    for payload in payloads:
        if visible(payload) in {visible(name) for name in group}:
            continue
        group.append(payload)
        if len(group) == size:
            groups.append(group)
            group = []
    if group:
        groups.append(group + ["Plain"] * (len(group) == 1))
    return groups


def finished_record(names: list[str], seed: int = 3, people: bool = False) -> dict:
    """A finished game between greedy bots seated under these names; with `people`, the record
    says nobody is a bot (the statistics list people by name, bots by what they are)."""
    from duckcover_bots.greedy import GreedyBot

    game = play_game([GreedyBot() for _ in names], seed=seed, names=list(names))
    return to_record(game, bots=None if people else ["greedy"] * len(names))


def assert_safe(text: str, payloads: list[str], where: str) -> None:
    """`text` (what a surface printed or drew) shows every payload as text and none raw."""
    for marker in RAW_MARKERS:
        assert marker not in text, f"{where}: raw {marker!r} reached the output"
    assert "Traceback" not in text, f"{where}: a traceback"
    for payload in payloads:
        assert visible(payload) in text, f"{where}: {visible(payload)!r} not shown"


def read_terminal(fd: int, wanted: bytes | None, limit: float) -> bytes:
    """What a program wrote to its terminal (the main side `fd` of a pty): until `wanted` shows,
    or (None) until the program closes it, at most `limit` seconds."""
    data, end = b"", time.monotonic() + limit
    while (wanted is None or wanted not in data) and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the program has ended and closed the terminal
            break
        if not chunk:
            break
        data += chunk
    return data
