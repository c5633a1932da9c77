"""The app's one door to bots: which bots exist, and loading one for a seat.

Deciding goes through the Referee (duckcover.players.safety), as in the arena: see TurnController.
"""
from __future__ import annotations

from ..players.difficulty import DIFFICULTIES

DIFFICULTY_NAMES = tuple(DIFFICULTIES)  # one list: duckcover/players/difficulty.py


def load_bot(spec: str, seed: int):
    """What plays a seat: a built-in bot in this process, any other in a process of its own
    (duckcover.players.sandbox.seat_bot); BotLoadError if a built-in cannot load."""
    from ..players.sandbox import seat_bot

    return seat_bot(spec, seed=seed)


def installed_bots() -> list[str]:
    """Names of the bots registered through the `duckcover.bots` entry points."""
    try:
        from ..players.plugins import available_bots

        return [info.name for info in available_bots() if info.error is None]
    except Exception:  # noqa: BLE001 - a broken plugin must not break the setup screen
        return []
