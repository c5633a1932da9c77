"""Small builders shared by the rules, record and property tests.

Hand-made positions come from `Game(..., start=False)` + `start_round(layouts=...)`,
then forced flips (`flip(code)`) and joint moves, so each rule test states its whole
position in a few lines.
"""
from __future__ import annotations

import json
import subprocess
import sys
from enum import Enum
from pathlib import Path
from types import MappingProxyType

from duckcover.engine import Game, Move, Phase, Rules
from duckcover.engine.cards import CARDS, FLIP_CODES, packaged_splashes
from duckcover.players.bot import Bot

# The splash table of RULES.md; tests never depend on a user's override of it.
SPLASHES = (0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5)
STANDARD = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]


def examples(n: int) -> int:
    """A property's example count: `n` under the CI profile, scaled with the loaded one (conftest.py)."""
    from hypothesis import settings

    return max(1, n * settings().max_examples // 100)


def rules(*variants: str, **options) -> Rules:
    return Rules(variants=frozenset(variants), splashes=packaged_splashes(), **options)


def seatable_rules(variants, players: int) -> Rules | None:
    """The rules of `variants` (in any order), or None if they do not seat `players`."""
    from duckcover.engine import RulesError

    try:
        found = rules(*sorted(variants))
        found.check_players(players)
    except RulesError:
        return None
    return found


def layout(placed: dict[tuple[int, int], int] | None = None) -> list[list[int]]:
    """A 4x3 starting layout with `placed` cell -> number; other numbers fill the rest in order."""
    placed = placed or {}
    rest = iter(n for n in range(1, 13) if n not in placed.values())
    return [[placed[(x, y)] if (x, y) in placed else next(rest) for x in range(4)] for y in range(3)]


def new_game(layouts, rule_set: Rules | None = None, captain: int = 0, deck=None, removed=None) -> Game:
    """A game whose first round starts from the given layouts (one per seat)."""
    game = Game(len(layouts), rule_set or rules(), seed=0, start=False)
    game.start_round(layouts=layouts, captain=captain, deck=deck, removed=removed)
    return game


def code(flip) -> int:
    return flip if isinstance(flip, int) else FLIP_CODES[flip]


def card(seat: int, number: int, family: int | None = None):
    return CARDS[seat if family is None else family][number]


def moves_for(game: Game, chosen: dict) -> list[Move | None]:
    """`chosen`: seat -> (number, cell) or (number, cell, family); other seats pass None."""
    out: list[Move | None] = [None] * game.n
    for seat, spec in chosen.items():
        number, to, *family = spec
        out[seat] = Move(card(seat, number, family[0] if family else None), to)
    return out


def turn(game: Game, flip, chosen: dict | None = None):
    """Flip `flip` and, if anybody must move, play `chosen`. Returns the call."""
    call = game.flip(code(flip))
    if game.phase is Phase.MOVE:
        game.play(moves_for(game, chosen or {}))
    return call


def tops(game: Game, seat: int) -> dict[tuple[int, int], int]:
    return {cell: stack[-1].number for cell, stack in game.grid(seat).items()}


def every_card(game: Game, seat: int) -> list:
    return [c for stack in game.grid(seat).values() for c in stack]


# --- records and the replay command -------------------------------------------------------------
def run_replay(path: Path | str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "duckcover", "replay", str(path), *extra],
        capture_output=True,
        text=True,
        timeout=60,
    )


def write_json(path: Path, data) -> Path:
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


def finish_round(game: Game, bot_class=None) -> None:
    """Play the current round to its end with bots (greedy by default)."""
    from duckcover.players.harness import decide, prepare
    from duckcover_bots.greedy import GreedyBot

    bots = [(bot_class or GreedyBot)() for _ in range(game.n)]
    prepare(bots)
    while game.phase not in (Phase.ROUND_OVER, Phase.GAME_OVER):
        if game.phase is Phase.FLIP:
            game.flip()
        else:
            game.play(decide(game, bots))


class DuckBot(Bot):
    """Always ducks (never covers): no card is ever covered, so nobody ever quacks."""

    name = "duck"

    def choose(self, view):
        ducks = [m for m in view.legal_moves() if m.to is None or m.to not in view.grid]
        return self.rng.choice(ducks) if ducks else None


# --- walking a view (information tests) ---------------------------------------------------------
PRIMITIVES = (int, str, float, bool, type(None), Enum)


def walk(obj, seen=None):
    """Every object reachable from `obj` through containers, named tuples and slots/attributes."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, (PRIMITIVES, type)):
        return
    seen.add(id(obj))
    yield obj
    if isinstance(obj, (tuple, list, set, frozenset)):
        children = list(obj)
    elif isinstance(obj, (dict, MappingProxyType)):
        children = [*obj.keys(), *obj.values()]
    else:
        names = [n for cls in type(obj).__mro__ for n in getattr(cls, "__slots__", ())]
        children = [getattr(obj, n, None) for n in names] + list(getattr(obj, "__dict__", {}).values())
    for child in children:
        yield from walk(child, seen)


def canonical(obj, seen=()):
    """A comparable picture of a view's contents (GridViews have identity equality)."""
    if isinstance(obj, PRIMITIVES):
        return obj
    if isinstance(obj, (tuple, list)):
        return tuple(canonical(x) for x in obj)
    if isinstance(obj, (dict, MappingProxyType)):
        return tuple(sorted((canonical(k), canonical(v)) for k, v in obj.items()))
    if isinstance(obj, (set, frozenset)):
        return tuple(sorted(map(canonical, obj)))
    if hasattr(obj, "cells"):
        return ("grid", canonical(obj.cells))
    return repr(obj)


# --- the app ---------------------------------------------------------------------------------
def finished_controller():
    """A TurnController over a finished 3-player game (for the Game over screen)."""
    from duckcover.app.controller import TurnController
    from duckcover.app.options import SeatSpec
    from duckcover.players.harness import play_game
    from duckcover_bots.greedy import GreedyBot

    game = play_game([GreedyBot(), GreedyBot(), GreedyBot()], seed=3, names=["Ann", "Jackson", "Gwen"])
    assert game.over
    return TurnController(game, [SeatSpec("Ann"), SeatSpec("Jackson", "medium"), SeatSpec("Gwen", "medium")])
