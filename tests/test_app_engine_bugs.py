"""Engine behaviour the app depends on for Resume; found while building the app (issue 4)."""
from duckcover.engine import Game
from duckcover.players.harness import decide, prepare
from duckcover.saves.record import replay, to_record
from duckcover_bots.greedy import GreedyBot


def played(turns: int, seed: int = 1) -> Game:
    bots = [GreedyBot(0), GreedyBot(1)]
    prepare(bots)
    game = Game(["a", "b"], seed=seed)
    for _ in range(turns):
        game.flip()
        while game.awaiting:
            game.play(decide(game, bots))
    return game


def test_a_replayed_game_draws_the_same_next_card_as_the_live_one():
    live = played(6)
    copy = replay(to_record(live))
    assert (copy.draw_size, copy.pile, copy.discard) == (live.draw_size, live.pile, live.discard)
    assert copy.flip() == live.flip()
    assert copy.flips == live.flips and copy.draw_size == live.draw_size
