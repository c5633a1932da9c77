"""One home for each word the game uses in several places: a second copy is how they drift apart
(the seat limits said 2-7 in three places and 2-9 in a fourth). Each test reads the package
source for a copy, or shows that the users all get their answer from the one home."""
from __future__ import annotations

import ast
import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import duckcover
import duckcover_bots
from duckcover.engine import CARDS
from duckcover.engine.grid import costliest_cover, neighbours
from duckcover.engine.rules import BOX_PLAYERS, MAX_PLAYERS, MIN_PLAYERS, Rules
from helpers import examples

SOURCES = [*Path(duckcover.__file__).parent.rglob("*.py"), *Path(duckcover_bots.__file__).parent.rglob("*.py")]


def _trees():
    for path in SOURCES:
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def test_seat_limits_are_numbers_in_the_rules_only():
    """Any name for a count of seats, players or bots that is given a number is the rules', or a
    variant's own table size (Cooperative's 2-5), declared on its class in variants.py."""
    words = ("SEATS", "PLAYERS", "BOTS")
    found = []
    for path, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Constant, ast.Tuple)):
                names = [t.id for target in node.targets for t in ast.walk(target) if isinstance(t, ast.Name)]
                numbers = [c for c in ast.walk(node.value) if isinstance(c, ast.Constant) and type(c.value) is int]
                if numbers and any(word in name for name in names for word in words):
                    found.append(f"{path.name}:{node.lineno} {names}")
    assert all(entry.startswith(("rules.py:", "variants.py:")) for entry in found), found
    assert (MIN_PLAYERS, BOX_PLAYERS, MAX_PLAYERS) == (2, 7, 9)  # RULES.md: 7 families, the Artists Pack 9


def test_every_table_maker_seats_what_the_rules_say():
    from duckcover.app import remote
    from duckcover.app.screens import core as screens
    from duckcover.commands import play
    from duckcover.net import server

    assert (server.MIN_SEATS, server.MAX_SEATS) == (MIN_PLAYERS, BOX_PLAYERS)
    assert screens.MAX_SEATS == remote.CreateTableScreen.MAX_SEATS == BOX_PLAYERS
    assert play.MAX_BOTS + 1 == BOX_PLAYERS
    Rules().check_players(MAX_PLAYERS)


def test_bot_names_are_written_once():
    """The names bots sit under are one tuple (duckcover/players/difficulty.py) the app and server read."""
    copies = [path.name for path, tree in _trees() for node in ast.walk(tree)
              if isinstance(node, ast.Constant) and node.value == "Jackson"]
    assert copies == ["difficulty.py"]


def test_cover_the_costliest_neighbour_is_written_once():
    """The greedy bot, the expert's rollouts and the Referee's fallback call grid.costliest_cover;
    none walks neighbours for the costliest top card itself."""
    callers = sorted(path.name for path, tree in _trees() for node in ast.walk(tree)
                     if isinstance(node, ast.Name) and node.id == "costliest_cover")
    assert {"greedy.py", "expert.py", "safety.py"} <= set(callers)
    for path in SOURCES:
        if path.name in {"greedy.py", "expert.py", "safety.py"}:
            assert "best_value" not in path.read_text(encoding="utf-8")


@st.composite
def positions(draw):
    """A grid of random stacks and some of its cells as candidates (card, origin)."""
    cells = draw(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=1, max_size=12, unique=True))
    grid = {cell: (CARDS[0][draw(st.integers(1, 12))],) for cell in cells}
    origins = draw(st.lists(st.sampled_from(cells), max_size=3, unique=True))
    return grid, [(grid[cell][-1], cell) for cell in origins]


@settings(max_examples=examples(100))
@given(positions(), st.lists(st.integers(0, 5), min_size=13, max_size=13))
def test_the_costliest_cover_is_the_first_adjacent_stack_worth_most(position, values):
    grid, candidates = position
    covers = [(values[grid[to][-1].number], index, card, to)
              for index, (card, origin) in enumerate(candidates)
              for to in neighbours(origin) if to in grid]
    found = costliest_cover(grid, candidates, values)
    if not covers:
        assert found is None
    else:
        best = max(worth for worth, *_ in covers)
        assert found == next((card, to) for worth, _, card, to in covers if worth == best)


def test_greedy_and_the_fallback_play_the_costliest_cover():
    from duckcover.engine import Game, Phase
    from duckcover.players.safety import passive_move
    from duckcover_bots.greedy import GreedyBot

    checked = 0
    for seed in range(3):
        game = Game(3, Rules(), seed=seed)
        rng = random.Random(seed)
        while not game.over:
            if game.phase is Phase.FLIP:
                game.flip()
                continue
            if game.phase is Phase.ROUND_OVER:
                game.start_round()
                continue
            views = {seat: game.view(seat) for seat in game.awaiting}
            for seat, view in views.items():
                cover = costliest_cover(view.grid.cells, view.candidates, view.rules.values)
                if view.phase is Phase.MOVE and cover is not None:
                    assert tuple(GreedyBot().choose(view)) == cover == tuple(passive_move(view))
                    checked += 1
            game.play([rng.choice(views[s].legal_moves()) if s in views and views[s].legal_moves() else None
                       for s in range(game.n)])
    assert checked > 20


def test_the_app_asks_the_view_who_quacks():
    """The controller's quacking humans are the seats whose view says must_quack, and that is
    the rule: a number called, the seat's card covered, never under two flips."""
    import inspect

    from duckcover.app.controller import TurnController
    from duckcover.app.options import SeatSpec
    from duckcover.engine import Game, Phase
    from duckcover.engine.rules import TWO_FLIPS

    assert "must_quack" in inspect.getsource(TurnController.quacking_humans)
    quacked = 0
    for seed, variants in ((1, frozenset()), (2, frozenset()), (3, frozenset({TWO_FLIPS}))):
        game = Game(3, Rules(variants=variants), seed=seed)
        ctl = TurnController(game, [SeatSpec(f"P{seat}") for seat in range(3)])
        rng = random.Random(seed)
        while not game.over:
            if game.phase is Phase.ROUND_OVER:
                game.start_round()
            game.flip()
            if game.phase is not Phase.MOVE:
                continue  # nobody could move: the turn (or the round) ended at the flip
            ctl.table.open_choice()
            covered = [] if game.call.kind != "move" or TWO_FLIPS in game.round_rules.variants else [
                seat for seat in range(3) if seat not in game.awaiting]
            assert ctl.quacking_humans() == covered
            quacked += len(covered)
            game.play([rng.choice(game.view(s).legal_moves()) if s in game.awaiting else None for s in range(3)])
            ctl.chosen = {}  # the game was played around the controller: forget the open choice
    assert quacked > 0


def test_the_repeat_rule_is_stated_once_and_captain_cards_follows_it():
    import inspect

    from duckcover.engine import MAX, REPEAT, game

    assert game.repeated(None, REPEAT, gift=False) is None  # nothing to repeat: a dead call
    assert game.repeated(7, REPEAT, gift=False) == 7 and game.repeated(7, 9, gift=False) == 9
    assert game.repeated(7, MAX, gift=True) is None  # low blows: a gift, which nothing repeats
    for function in (game.captain_cards, game.Game._one_flip_call, game.Game._two_flip_call):
        source = inspect.getsource(function)
        assert "repeated(" in source and "== REPEAT" not in source and "!= REPEAT" not in source
