"""RULES.md "Options and variants", and the rulings docs/rules.md adds for them."""
from collections import Counter

import pytest

from duckcover.engine import MAX, REPEAT, Game, IllegalMoveError, Move, Phase, PlayerView, Rules, RulesError
from duckcover.players.harness import play_game
from duckcover.saves import record
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot
from helpers import STANDARD, DuckBot, card, every_card, finish_round, layout, new_game, rules, tops, turn


def _random_game(rule_set, players=4, seed=0):
    return play_game([RandomBot() for _ in range(players)], rule_set, seed=seed)


def _end_tops(game, index):
    return [sorted(stack[-1].number for stack in grid.values()) for grid in game.table(index)[0]]


# --- Competition ------------------------------------------------------------------------------
def test_competition_scores_card_numbers_instead_of_splashes():
    table = rules("competition")
    assert table.value(12) == 12 and table.value(7) == 7
    assert table.round_score([table.value(n) for n in (6, 2)], last_round=False) == 8


def test_competition_a_lone_12_scores_minus_12():
    table = rules("competition")
    assert table.round_score([table.value(12)], last_round=False) == -12


def test_competition_changes_only_the_scores():
    # RandomBot ignores scores, so the same seed plays the same game under both rules.
    plain, comp = _random_game(rules(), seed=3), _random_game(rules("competition"), seed=3)
    for index, result in enumerate(comp.results):
        assert _end_tops(comp, index) == _end_tops(plain, index)
        expected = tuple(sum(t) if len(t) > 1 else -t[0] for t in _end_tops(comp, index))
        assert result.scores == expected


# --- Pressure ---------------------------------------------------------------------------------
def test_pressure_doubles_negative_scores_in_the_last_round_only():
    table = rules("pressure")
    assert table.round_score([table.value(10)], last_round=True) == -8
    assert table.round_score([table.value(10)], last_round=False) == -4
    assert table.round_score([table.value(10), table.value(12)], last_round=True) == 9


def test_pressure_in_played_games():
    doubled = 0
    for seed in range(12):
        plain, pressed = _random_game(rules(), seed=seed), _random_game(rules("pressure"), seed=seed)
        assert plain.results[:2] == pressed.results[:2]
        for a, b in zip(plain.results[2].scores, pressed.results[2].scores):
            assert b == (2 * a if a < 0 else a)
            doubled += a < 0
    assert doubled, "no seed ended its last round on a negative score"


# --- Constraints ------------------------------------------------------------------------------
def test_constraints_deck_has_20_cards_without_1_2_3():
    deck = rules("constraints").deck()
    assert len(deck) == 20
    assert not {1, 2, 3} & set(deck)
    assert Counter(deck) == Counter({**{n: 2 for n in range(4, 13)}, MAX: 1, REPEAT: 1})
    assert Game(2, rules("constraints"), seed=1).draw_size == 20


def test_constraints_1_to_3_are_never_called():
    game = new_game([STANDARD] * 2, rules("constraints"))
    with pytest.raises(IllegalMoveError, match="not in the draw deck"):
        game.flip(1)


def test_constraints_1_to_3_can_be_covered_and_carried():
    covered = carried = 0
    for seed in range(4):
        game = _random_game(rules("constraints"), seed=seed)
        for index, log in enumerate(game.rounds):
            assert all(m is None or m.card.number > 3 for t in log.turns for m in t.moves)  # never called
            for seat, grid in enumerate(game.table(index)[0]):
                start = {n: (x, y) for y, row in enumerate(log.layouts[seat]) for x, n in enumerate(row)}
                for cell, stack in grid.items():
                    for low in (c for c in stack if c.number <= 3):
                        covered += low is not stack[-1]
                        carried += start[low.number] != cell
    assert covered and carried


# A splash table a box owner might supply, under which 1-3 are worth the most: with max_by=splashes
# Max would take the 1 (9 splashes) were it not for Constraints' ruling. With the real table a
# visible 4-12 always outranks 1-3, so only such a table (or a seat showing nothing but 1-3)
# tells whether the ruling is there.
LOW_CARDS_COSTLY = (9, 8, 7, 1, 1, 2, 2, 3, 3, 4, 4, 5)


def test_constraints_max_never_picks_1_to_3():
    # Ruling (docs/rules.md): Max takes the highest visible duck numbered 4 or more.
    costly = Rules(max_by="splashes", splashes=LOW_CARDS_COSTLY)
    game = new_game([STANDARD, STANDARD], costly)
    game.flip(MAX)
    assert [c.number for c, _ in game.candidates(0)] == [1]  # without Constraints: the costliest, a 1
    constrained = Rules(max_by="splashes", splashes=LOW_CARDS_COSTLY, variants=frozenset(["constraints"]))
    game = new_game([STANDARD, STANDARD], constrained)
    game.flip(MAX)
    assert [c.number for c, _ in game.candidates(0)] == [12]  # 5 splashes, the best of 4-12
    assert [c.number for c, _ in game.view(0).candidates] == [12]


def test_constraints_max_key_ranks_1_to_3_below_every_card():
    """Rules.max_key is what a bot ranks Max by: it must agree with the engine's Max."""
    for max_by in ("number", "splashes"):
        table = Rules(max_by=max_by, splashes=LOW_CARDS_COSTLY, variants=frozenset(["constraints"]))
        assert [table.max_key(n) for n in (1, 2, 3)] == [-1, -1, -1]
        assert all(table.max_key(n) >= 0 for n in range(4, 13))
        assert Rules(max_by=max_by, splashes=LOW_CARDS_COSTLY).max_key(1) == (1 if max_by == "number" else 9)


def test_constraints_a_seat_showing_only_1_to_3_does_nothing_on_max():
    from duckcover.engine.game import highest

    table = rules("constraints")
    only_low = {card(0, 1): (0, 0), card(0, 3): (1, 0)}
    assert highest(only_low, table) == []
    assert highest(only_low, rules()) == [(card(0, 3), (1, 0))]


# --- Surprises --------------------------------------------------------------------------------
def test_surprises_remove_two_unseen_cards_each_round_and_they_come_back():
    game = play_game([GreedyBot() for _ in range(3)], rules("surprises"), seed=2)
    full = sorted(rules().deck())
    for log in game.rounds:
        assert len(log.removed) == 2 and len(log.deck) == 24
        assert sorted(log.deck + log.removed) == full  # back in the deck for the next round
        flipped = {f for t in log.turns for f in t.flips}
        assert not flipped - set(log.deck)  # a card removed in both copies never shows up
    data = record.to_record(game)
    assert all(len(entry["removed"]) == 2 for entry in data["rounds"])


def test_surprises_removed_cards_are_not_in_the_view():
    game = Game(3, rules("surprises"), seed=4)
    assert game.draw_size == 24 and game.view(0).draw_size == 24
    assert "removed" not in PlayerView._fields


def test_surprises_removed_card_cannot_be_flipped():
    game = new_game([STANDARD] * 2, rules("surprises"), removed=[MAX, 7])
    with pytest.raises(IllegalMoveError):
        game.flip(MAX)
    game.flip(7)  # the other 7 is still there
    with pytest.raises(IllegalMoveError):
        Game(2, rules(), seed=0, start=False).start_round(removed=[MAX, MAX])


def _seen(view: PlayerView) -> PlayerView:
    return view._replace(grids=tuple(dict(grid.cells) for grid in view.grids))  # grids by content


def _mirror_follows(game: Game, bots) -> Game:
    """Play `game` to its end with `bots`; a mirror dealt `unseen` (the whole card set, the
    removals unknown) follows it from the public facts alone, view for view."""
    mirror = Game(game.names, game.rules, seed=0, start=False)
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_round()
        log = game.round
        if len(mirror.rounds) < len(game.rounds):
            mirror.start_round(log.layouts, [], log.captain, sorted(log.deck + log.removed), unseen=True)
        game.flip()
        mirror.flip(*game.flips)
        while game.phase in (Phase.MOVE, Phase.GIFT, Phase.PLACE):
            moves = [bots[s].choose(game.view(s)) if s in game.awaiting else None for s in range(game.n)]
            game.play(moves)
            mirror.play(moves)
        assert [_seen(mirror.view(s)) for s in range(game.n)] == [_seen(game.view(s)) for s in range(game.n)]
        assert len(mirror.round.reshuffles) == len(log.reshuffles)  # the deck ran out at the same flip
    assert mirror.totals == game.totals
    return mirror


@pytest.mark.parametrize("variants", [("surprises",), ("surprises", "two-flips"), ("surprises", "low-blows")])
@pytest.mark.parametrize("seed", [1, 6])
def test_surprises_a_table_that_never_learns_the_removed_cards_plays_the_same_game(variants, seed):
    """A player at the table does not know which two cards were removed: a game dealt `unseen`
    holds them in its draw deck, out of play, and still keeps step with the real one, its
    deck running out when the real one does (a network client's mirror is such a game)."""
    game = Game(3, rules(*variants), seed=seed)
    _mirror_follows(game, [RandomBot() for _ in range(3)])
    assert any(log.reshuffles for log in game.rounds)  # the decks ran out, and the mirror kept step


def test_surprises_an_unseen_deal_names_its_flips_and_no_removed_cards():
    game = Game(2, rules("surprises"), seed=0, start=False)
    with pytest.raises(IllegalMoveError):
        game.start_round(removed=[MAX], unseen=True)
    game.start_round(deck=sorted(rules().deck()), unseen=True)
    assert game.draw_size == 24 and game.view(0).draw_size == 24  # the two unknown cards are not counted
    with pytest.raises(IllegalMoveError):
        game.flip()  # which card is on top is not known here


# --- Madness ----------------------------------------------------------------------------------
@pytest.mark.parametrize("bot", [RandomBot, GreedyBot])
def test_madness_is_cosmetic_the_rules_are_unchanged(bot):
    plain = play_game([bot() for _ in range(4)], rules(), seed=5)
    mad = play_game([bot() for _ in range(4)], rules("madness"), seed=5)
    assert record.summary(mad) == record.summary(plain)
    assert mad.history == plain.history


# --- Low blows --------------------------------------------------------------------------------
def _low_blows_gift_turn(flip=MAX):
    game = new_game([STANDARD] * 3, rules("low-blows"))
    call = game.flip(flip)
    return game, call


@pytest.mark.parametrize("flip", [MAX, REPEAT])
def test_low_blows_max_and_repeat_become_gifts(flip):
    game, call = _low_blows_gift_turn(flip)
    assert call.kind == "gift" and game.phase is Phase.GIFT
    assert game.awaiting == (0, 1, 2)


def test_low_blows_repeat_after_a_number_is_a_gift_not_a_repeat():
    game = new_game([STANDARD] * 2, rules("low-blows"))
    turn(game, 5, {0: (5, (0, 0)), 1: (5, (0, 0))})
    assert game.flip(REPEAT).kind == "gift" and game.phase is Phase.GIFT


def test_low_blows_gift_is_one_of_the_two_lowest_value_visible_ducks():
    game, _ = _low_blows_gift_turn()
    # values: 1 -> 0, 2 and 3 -> 1: the second-lowest value is 1, ties all allowed (ruling)
    assert sorted(c.number for c, _ in game.candidates(0)) == [1, 2, 3]
    assert all(m.to is None for m in game.legal_moves(0))
    with pytest.raises(IllegalMoveError):
        game.play([Move(card(0, 12), None), Move(card(1, 1), None), Move(card(2, 1), None)])


def test_low_blows_gift_is_never_the_third_lowest_value():
    # Under Competition every number is its own value: the two lowest are 1 and 2, never the 3.
    game = new_game([STANDARD] * 3, rules("low-blows", "competition"))
    game.flip(MAX)
    assert sorted(c.number for c, _ in game.candidates(0)) == [1, 2]
    with pytest.raises(IllegalMoveError):
        game.play([Move(card(0, 3), None), Move(card(1, 1), None), Move(card(2, 1), None)])


def test_low_blows_gift_goes_to_the_seat_on_the_left_and_is_placed_by_the_duck_rule():
    game, _ = _low_blows_gift_turn()
    game.play([Move(card(0, 1), None), Move(card(1, 2), None), Move(card(2, 3), None)])
    assert game.phase is Phase.PLACE
    assert game.received(1) == (card(0, 1),)  # seat 0 gave to seat 1 (seat + 1)
    assert game.received(2) == (card(1, 2),)
    assert game.received(0) == (card(2, 3),)  # wrapping round
    assert all(m.to not in game.grid(0) for m in game.legal_moves(0))
    assert Move(card(2, 3), (0, 0)) in game.legal_moves(0)  # the gap its own gift left
    with pytest.raises(IllegalMoveError, match="Duck rule"):
        game.play([Move(card(2, 3), (1, 0)), Move(card(0, 1), (-1, 0)), Move(card(1, 2), (-1, 0))])
    with pytest.raises(IllegalMoveError, match="cannot duck"):  # (-1, 0) touched only the 1 it gave
        game.play([Move(card(2, 3), (-1, 0)), Move(card(0, 1), (-1, 0)), Move(card(1, 2), (-1, 0))])
    game.play([Move(card(2, 3), (-1, 1)), Move(card(0, 1), (-1, 0)), Move(card(1, 2), (-1, 0))])
    assert game.grid(1)[(-1, 0)] == (card(0, 1),)
    assert game.pile == (MAX,) and game.discard == () and game.phase is Phase.FLIP


def test_low_blows_gift_carries_the_stack_beneath_it():
    game = new_game([STANDARD] * 2, rules("low-blows"))
    turn(game, 1, {0: (1, (1, 0)), 1: (1, (1, 0))})  # 1 on top of 2
    game.flip(REPEAT)
    assert (card(0, 1), (1, 0)) in game.candidates(0)
    game.play([Move(card(0, 1), None), Move(card(1, 3), None)])
    assert game.received(1) == (card(0, 2), card(0, 1))
    assert game.view(1).received == (card(0, 1), 2)  # the receiver sees top and height


def test_low_blows_a_player_may_hold_two_cards_with_one_number_and_chooses():
    game, _ = _low_blows_gift_turn()
    game.play([Move(card(0, 1), None), Move(card(1, 2), None), Move(card(2, 1), None)])
    game.play([Move(card(2, 1), (-1, 1)), Move(card(0, 1), (0, -1)), Move(card(1, 2), (-1, 1))])
    game.flip(1)
    assert sorted(c.family for c, _ in game.candidates(1)) == [0, 1]  # its own 1 and seat 0's
    assert 2 not in game.awaiting  # seat 2 gave its 1 away: nothing to move
    game.play([Move(card(2, 1), (0, 0)), Move(card(0, 1), (0, 0)), None])  # seat 1 moves seat 0's 1
    assert game.grid(1)[(0, 0)] == (card(1, 1), card(0, 1)) and (0, -1) not in game.grid(1)


def test_low_blows_conserve_12_cards_per_player_across_the_table():
    for seed in range(3):
        game = _random_game(rules("low-blows"), players=4, seed=seed)
        for index in range(3):
            cards = [c for grid in game.table(index)[0] for stack in grid.values() for c in stack]
            assert len(cards) == 48 and len(set(cards)) == 48


def test_low_blows_cannot_be_combined_with_two_flips():
    with pytest.raises(RulesError):
        rules("low-blows", "two-flips")


# --- Two flips --------------------------------------------------------------------------------
def test_two_flips_turns_two_cards_and_each_player_moves_one_of_them():
    game = new_game([STANDARD] * 2, rules("two-flips"))
    call = game.flip(5, 6)
    assert call.options == (5, 6) and game.flips == (5, 6)
    assert {c.number for c, _ in game.candidates(0)} == {5, 6}
    game.play([Move(card(0, 6), (0, 1)), Move(card(1, 5), (0, 0))])
    assert game.pile == (5, 6)
    assert tops(game, 0)[(0, 1)] == 6 and tops(game, 1)[(0, 0)] == 5


def test_two_flips_without_a_visible_card_nobody_moves_and_nothing_is_discarded():
    game = new_game([STANDARD] * 2, rules("two-flips"))
    game.flip(6, 8)
    game.play([Move(card(0, 6), (0, 1)), Move(card(1, 6), (0, 1))])  # both 5s covered
    game.flip(5, 5)
    assert game.phase is Phase.FLIP and game.awaiting == ()
    assert game.discard == () and game.pile == (6, 8, 5, 5)
    assert game.view(0).discard_limit is None


def test_two_flips_has_no_quack():
    game = new_game([STANDARD] * 2, rules("two-flips"))
    game.flip(6, 8)
    game.play([Move(card(0, 6), (0, 1)), Move(card(1, 6), (0, 1))])
    game.flip(5, 5)
    assert not game.view(0).must_quack


def test_only_the_two_flips_variant_flips_two_cards():
    with pytest.raises(IllegalMoveError):
        new_game([STANDARD] * 2).flip(5, 6)


def test_two_flips_repeat_takes_the_first_card_of_the_same_turn():
    game = new_game([STANDARD] * 2, rules("two-flips"))
    assert game.flip(9, REPEAT).options == (9,)  # both name the 9: it moves once
    assert {c.number for c, _ in game.candidates(0)} == {9}


def test_two_flips_repeat_takes_the_last_card_of_the_previous_turn():
    game = new_game([STANDARD] * 2, rules("two-flips"))
    game.flip(7, 8)
    game.play([Move(card(0, 7), (1, 1)), Move(card(1, 8), (3, 2))])
    assert game.flip(REPEAT, 4).options == (8, 4)


def test_two_flips_repeat_as_first_flip_of_the_round_calls_nothing():
    game = new_game([STANDARD] * 2, rules("two-flips"))
    assert game.flip(REPEAT, 4).options == (4,)
    assert game.flips == (REPEAT, 4)


def test_two_flips_rounds_end_only_on_single_stack_or_turn_cap():
    for seed in range(4):
        game = _random_game(rules("two-flips"), players=3, seed=seed)
        assert {r.reason for r in game.results} <= {"single-stack", "turn-cap"}
        assert all(not log.end_discard for log in game.rounds)


def test_two_flips_turn_cap_counts_1000_flipped_cards():
    # Ruling (docs/rules.md): the safety net is 1,000 flipped cards, two per turn.
    game = Game(2, rules("two-flips"), seed=3)
    finish_round(game, DuckBot)
    assert game.results[0].reason == "turn-cap"
    assert len(game.rounds[0].turns) == 500


# --- Cooperative ------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 5])
def test_cooperative_two_rounds_and_all_seats_win(players):
    game = play_game([GreedyBot() for _ in range(players)], rules("cooperative"), seed=1)
    assert len(game.results) == 2 and game.over
    outcome = game.outcome()
    assert outcome.winners == tuple(range(players)) and outcome.decided_by == "team"
    assert sum(outcome.totals) == sum(sum(r.scores) for r in game.results)  # the team total


@pytest.mark.parametrize("players", [1, 6, 9])
def test_cooperative_takes_2_to_5_players(players):
    with pytest.raises(RulesError):
        Game(players, rules("cooperative"))


# --- Artists Pack ---------------------------------------------------------------------------
@pytest.mark.parametrize("players,limit", [(8, 3), (9, 2)])
def test_artists_pack_games_play_to_the_end(players, limit):
    game = play_game([GreedyBot() for _ in range(players)], rules(), seed=players)
    assert game.over and game.rules.discard_limit(players) == limit
    for index, result in enumerate(game.results):
        if result.reason == "discard-limit":
            assert len(game.rounds[index].end_discard) == limit


# --- combinations -------------------------------------------------------------------------------
def test_competition_and_pressure_double_a_lone_12_in_the_last_round():
    table = rules("competition", "pressure")
    assert table.round_score([table.value(12)], last_round=True) == -24


def test_every_variant_is_accepted_and_plays():
    for variant in ("competition", "pressure", "constraints", "surprises", "madness", "low-blows",
                    "two-flips", "cooperative", "artists-pack"):
        game = _random_game(rules(variant), players=3, seed=1)
        assert game.over, variant
        assert all(len(every_card(game, s)) for s in range(3))


def test_constraints_low_blows_gift_may_hand_over_a_duck_numbered_1_to_3():
    """Ruling: a gift is not a call, so Constraints does not keep the 1 from being given."""
    game = new_game([STANDARD] * 2, rules("constraints", "low-blows"))
    game.flip(MAX)
    assert game.phase is Phase.GIFT
    assert card(0, 1) in [c for c, _ in game.candidates(0)]
    game.play([Move(card(0, 1), None), Move(card(1, 1), None)])
    assert game.phase is Phase.PLACE and game.received(1)[-1] == card(0, 1)
