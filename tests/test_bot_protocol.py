"""The bot process protocol (duckcover-bot/1): a view survives the trip as plain JSON, and an
answer is rebuilt from engine values or refused."""
from __future__ import annotations

import os

import json

import pytest

from duckcover.engine import CARDS, CHOOSING, Game, Move, Phase
from duckcover.engine.rules import LOW_BLOWS, SURPRISES, TWO_FLIPS, Rules
from duckcover.players.safety import MalformedMove, fallback_move
from duckcover.players.sandbox import move_data, move_from_data, turn_data, view_data, view_from_data


def plain(view):
    """A view with its grids as dicts, so two views compare by content."""
    return view._replace(grids=tuple(dict(grid.cells) for grid in view.grids))


def views_along_a_game(rules, seed, players: int = 4):
    """Every seat's view at every choice of one game played with fallback moves."""
    game = Game(players, rules, seed=seed)
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_round()
        game.flip()
        while game.phase in CHOOSING:
            for seat in range(game.n):
                yield game.view(seat)
            game.play([fallback_move(game, seat) for seat in range(game.n)])


@pytest.mark.parametrize("variants", [(), (LOW_BLOWS,), (TWO_FLIPS, SURPRISES)], ids=["standard", "low-blows", "two-flips"])
def test_a_view_survives_the_trip_through_json(variants):
    rules = Rules(variants=frozenset(variants), max_by="splashes")
    phases = set()
    for view in views_along_a_game(rules, seed=3):
        trip = view_from_data(json.loads(json.dumps(view_data(view))))
        assert plain(trip) == plain(view)
        assert trip.legal_moves() == view.legal_moves()
        phases.add(view.phase)
        for turn in view.history:
            assert json.loads(json.dumps(turn_data(turn))) == turn_data(turn)
    assert Phase.MOVE in phases and (Phase.GIFT in phases) == (LOW_BLOWS in variants)


def test_an_answer_is_rebuilt_from_engine_values():
    card = CARDS[2][7]
    assert move_from_data(move_data(Move(card, (1, -1)))).card is card
    assert move_from_data({"card": [2, 7], "to": None}) == Move(card, None)
    assert move_from_data(None) is None


@pytest.mark.parametrize("answer", [
    "e2e4", 42, [], {"card": [0, 13], "to": [0, 0]}, {"card": [9, 1], "to": [0, 0]}, {"card": [0, 1], "to": [0.5, 0]},
    {"card": [0, 1], "to": [0, 0, 0]}, {"card": [True, 1], "to": [0, 0]}, {"card": [0, 1], "to": [1 << 40, 0]},
    {"card": "5", "to": [0, 0]}, {"to": [0, 0]},
])
def test_an_answer_that_is_not_a_move_is_refused(answer):
    with pytest.raises(MalformedMove):
        move_from_data(answer)


HOOKED = """\
from duckcover_bots.greedy import GreedyBot
class Hooked(GreedyBot):
    def note(self, what, view):  # printed: a bot process may write no file (docs/bots.md)
        print(what, view.round_index, len(view.history))
    def start_game(self, view):
        self.note("start_game", view)
    def start_round(self, view):
        self.note("start_round", view)
    def observe(self, view, turn):
        self.note("observe", view)
"""


@pytest.mark.keys  # a bot process: the slow tier
def test_a_bot_in_its_own_process_hears_every_hook(tmp_path):
    from duckcover.players.harness import play_game
    from duckcover.players.plugins import resolve_bot
    from duckcover.players.safety import Referee
    from duckcover.players.sandbox import BotProcess

    path = tmp_path / "hooked.py"
    path.write_text(HOOKED)
    process = BotProcess(str(path))
    bots = [process, resolve_bot("greedy")]
    referee = Referee(bots, key=bytes(16), keep_processes=True)
    game = play_game(bots, seed=4, referee=referee)
    assert not referee.fallbacks and not referee.incidents
    printed = os.pread(process._out.fileno(), 1 << 16, 0).decode()
    process.close()
    heard = [line.split() for line in printed.splitlines()]
    assert heard[0] == ["start_game", "0", "0"]
    assert [h for h in heard if h[0] == "start_round"] == [["start_round", str(r), "0"] for r in range(3)]
    assert len([h for h in heard if h[0] == "observe"]) == sum(len(r.turns) for r in game.rounds)
