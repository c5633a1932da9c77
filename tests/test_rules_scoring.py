"""RULES.md "Scoring and the game": plus/minus, three rounds, lowest total, tie-breaks."""
import pytest

from duckcover.engine import IllegalMoveError
from duckcover.engine.game import Game, Phase, game_outcome
from duckcover.players.harness import play_game
from duckcover_bots.greedy import GreedyBot
from helpers import SPLASHES, finish_round, rules


def test_several_stacks_score_the_visible_splashes_plus():
    table = rules()
    assert table.round_score([table.value(n) for n in (12, 1, 7)], last_round=False) == 5 + 0 + 3


def test_exactly_one_stack_scores_its_top_splashes_minus():
    table = rules()
    assert table.round_score([table.value(12)], last_round=False) == -5
    assert table.round_score([table.value(1)], last_round=True) == 0


def _recomputed_scores(game, index):
    """RULES.md's scoring restated from its own splash table (not from the engine's Rules)."""
    scores = []
    for grid in game.table(index)[0]:
        values = [SPLASHES[stack[-1].number - 1] for stack in grid.values()]
        scores.append(sum(values) if len(values) > 1 else -values[0])
    return tuple(scores)


@pytest.mark.parametrize("seed", range(4))
def test_round_scores_are_the_splashes_of_the_tops_at_the_round_end(seed):
    game = play_game([GreedyBot() for _ in range(4)], rules(), seed=seed)
    for index, result in enumerate(game.results):
        assert result.scores == _recomputed_scores(game, index)


def test_a_game_has_three_rounds():
    game = play_game([GreedyBot() for _ in range(3)], rules(), seed=1)
    assert game.over and len(game.results) == 3 and len(game.rounds) == 3
    assert game.totals == tuple(sum(r.scores[s] for r in game.results) for s in range(3))
    with pytest.raises(IllegalMoveError):
        game.start_round()


def test_the_next_round_starts_only_after_the_previous_one_ended():
    game = Game(2, rules(), seed=1)
    with pytest.raises(IllegalMoveError):
        game.start_round()
    finish_round(game)
    assert game.phase is Phase.ROUND_OVER and game.outcome() is None
    game.start_round()
    assert game.round_index == 1


def test_lowest_total_wins():
    out = game_outcome(rules(), (12, 5, 9), (3, 4, 2))
    assert out.winners == (1,) and out.decided_by == "score"


def test_tie_break_fewest_visible_cards_at_end_of_last_round():
    out = game_outcome(rules(), (5, 5, 9), (4, 2, 1))
    assert out.winners == (1,) and out.decided_by == "fewest-cards"


def test_shared_victory_when_still_tied():
    out = game_outcome(rules(), (5, 5, 5, 9), (3, 3, 4, 1))
    assert out.winners == (0, 1) and out.decided_by == "shared"


def test_game_outcome_names_the_lowest_totals():
    for seed in range(3):
        game = play_game([GreedyBot() for _ in range(5)], rules(), seed=seed)
        outcome = game.outcome()
        best = min(game.totals)
        assert all(game.totals[s] == best for s in outcome.winners)
        fewest = min(game.results[-1].stacks[s] for s in range(5) if game.totals[s] == best)
        assert all(game.results[-1].stacks[s] == fewest for s in outcome.winners)


def test_scores_may_end_below_zero():
    assert rules().round_score([4], last_round=False) == -4
