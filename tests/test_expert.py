"""The expert bot: legal under every variant, reproducible, blind to hidden cards, and sensible."""
from __future__ import annotations

import pytest

from duckcover.engine import CARDS, Move
from duckcover.engine.game import Game, Phase, captain_cards
from duckcover.engine.rules import ARTISTS_PACK, COOPERATIVE, VARIANTS, Rules
from duckcover.players.harness import DecisionRandom, play_game
from duckcover_bots.expert import ExpertBot
from duckcover_bots.greedy import GreedyBot

pytestmark = pytest.mark.keys  # the expert searches whole rollouts: the slow tier

TINY = 12  # rollouts per decision: enough to exercise the search, fast enough for CI


def players_for(variant: str) -> int:
    return 8 if variant == ARTISTS_PACK else 3


@pytest.mark.parametrize("variant", [None, *VARIANTS, "max-by-splashes"])
def test_plays_whole_games_legally_under_every_variant(variant):
    if variant == "max-by-splashes":
        rules = Rules(max_by="splashes")
    else:
        rules = Rules(variants=frozenset([variant] if variant else []))
    seats = players_for(variant or "")
    bots = [ExpertBot(budget=TINY)] + [GreedyBot() for _ in range(seats - 1)]  # one searcher: it is the cost
    game = play_game(bots, rules=rules, seed=7)  # the engine raises IllegalMoveError on any illegal move
    assert game.over
    assert len(game.results) == rules.rounds()
    expert_moves = sum(1 for log in game.rounds for turn in log.turns if turn.moves[0] is not None)
    assert expert_moves > 0


def test_same_seed_same_game():
    def moves(seed):
        game = play_game([ExpertBot(budget=TINY), GreedyBot(), GreedyBot(), ExpertBot(budget=TINY)], seed=seed)
        return [turn.moves for log in game.rounds for turn in log.turns], game.totals

    first = moves(3)
    assert moves(3) == first
    assert moves(4) != first


def decide(bot, view, key=1234):
    bot.rng = DecisionRandom()
    bot.rng.reseed(key)
    return bot.choose(view)


LAYOUT = [[12, 5, 1, 4], [8, 2, 7, 6], [3, 9, 10, 11]]
OTHER = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]


def dealt(deck):
    game = Game(2, seed=1, start=False)
    game.start_round(layouts=[LAYOUT, OTHER], deck=deck)
    return game


def test_never_uses_the_deck_order():
    """Two tables that differ only in the hidden deck order get the same answer."""
    deck = sorted(Rules().deck())
    reordered = list(reversed(deck))
    reordered.remove(5)
    reordered.insert(0, 5)  # both decks must hold a 5 to flip; the rest is in another order
    choices = []
    for order in (deck, reordered):
        game = dealt(order)
        game.flip(5)
        choices.append(decide(ExpertBot(budget=400), game.view(0)))
    assert choices[0] == choices[1]


def test_covers_the_twelve_rather_than_the_one():
    game = dealt(sorted(Rules().deck()))
    game.flip(5)  # our 5 at (1, 0) sits between the 12 at (0, 0) and the 1 at (2, 0)
    move = decide(ExpertBot(budget=1000), game.view(0))  # 20 of 20 decision seeds agree at this budget
    assert move.card.number == 5 and move.to == (0, 0)


# Forced turns (flip, seat 0's move, seat 1's move) that leave seat 0 with two stacks side by
# side: a 9 at (1, 1) (one 9 still in the deck) and a 4 at (2, 1). Found by a seeded search.
TO_TWO_STACKS = [
    (12, (12, (0, 1)), (12, (2, 3))), (3, (3, (0, 1)), (3, (2, 4))), (3, (3, (1, 1)), (3, (3, 3))),
    (1, (1, (1, 0)), (1, (3, 4))), (10, (10, (3, 2)), (10, (3, 5))), (1, (1, (1, 1)), (1, (3, 6))),
    (10, (10, (3, 1)), (10, (3, 7))), (4, (4, (3, 1)), (4, (3, 8))), (4, (4, (2, 1)), (4, (4, 7))),
    (9, (9, (1, 1)), (9, (4, 8))),
]


def two_stacks() -> Game:
    game = dealt(sorted(Rules().deck()))
    for code, *moves in TO_TWO_STACKS:
        game.flip(code)
        game.play([Move(CARDS[seat][number], to) for seat, (number, to) in enumerate(moves)])
    return game


def draw_deck(game: Game) -> list[int]:
    """The real draw deck now, from the round's log (what the bot must never see)."""
    log = game.round
    order = log.reshuffles[-1] if log.reshuffles else log.deck
    return order[len(order) - game.draw_size :]


def test_ends_the_round_on_a_single_stack_when_that_wins():
    game = two_stacks()
    assert game.phase is Phase.FLIP and {c: s[-1].number for c, s in game.grid(0).items()} == {(1, 1): 9, (2, 1): 4}
    game.flip(9)
    move = decide(ExpertBot(budget=400), game.view(0))
    assert move.to == (2, 1)  # cover: one stack topped by 9 scores -3 and ends the round; a duck keeps +5


def test_captain_cards_track_the_draw_deck_through_a_reshuffle():
    bots = [GreedyBot(), GreedyBot(), GreedyBot(), GreedyBot()]
    checked = 0

    def check(game, turn):
        nonlocal checked
        if game.phase is Phase.FLIP:
            unseen, pile, _ = captain_cards(game.view(0))
            assert unseen == sorted(draw_deck(game))  # no Surprises: the multiset is exact
            assert pile == list(game.pile)
            checked += 1

    game = play_game(bots, seed=4, on_turn=check)
    assert checked > 30
    assert any(log.reshuffles for log in game.rounds)  # the seed is chosen to reach a reshuffle


def test_cooperative_counts_the_team():
    game = play_game([ExpertBot(budget=TINY), GreedyBot(), GreedyBot()], rules=Rules(variants=frozenset([COOPERATIVE])), seed=2)
    assert game.outcome().decided_by == "team"


def test_a_wall_clock_limit_still_answers_legally():
    game = dealt(sorted(Rules().deck()))
    game.flip(5)
    bot = ExpertBot(budget=100_000)
    bot.time_limit = 0.05  # far less than the budget needs: the search stops early
    move = decide(bot, game.view(0))
    assert game.view(0).is_legal(move)


@pytest.mark.parametrize("variant", ["surprises", "two-flips"])
def test_captain_cards_mid_turn_hold_the_real_draw_deck(variant):
    """While seats choose, the flipped card is out of the deck; Surprises leave 2 unknown cards."""
    game = Game(4, Rules(variants=frozenset([variant])), seed=5)
    bots = [GreedyBot() for _ in range(4)]
    extra = 2 if variant == "surprises" else 0
    checked = 0
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_round()
        game.flip()
        while game.phase in (Phase.MOVE, Phase.GIFT, Phase.PLACE):
            pool, pile, _ = captain_cards(game.view(0))
            for card in draw_deck(game):
                pool.remove(card)  # ValueError if a real card were missing from the pool
            assert len(pool) == (0 if game.round.reshuffles else extra)  # a reshuffle shows every card
            assert pile == list(game.pile)
            checked += 1
            game.play([bot.choose(game.view(seat)) if seat in game.awaiting else None for seat, bot in enumerate(bots)])
    assert checked > 20
