"""Invariants over many random seeded games: every player count, both options, each variant and
a few combinations, played by RandomBot and GreedyBot through the same loop as the harness.

Each test drives games with `checked_game`, which calls `on_step(game, ...)` hooks at every
flip and every joint move, so one invariant per test stays readable.
"""
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from duckcover.engine import CHOOSING, MAX, REPEAT, Game, IllegalMoveError, Move, Phase
from duckcover.engine.cards import packaged_splashes
from duckcover.engine.rules import CONSTRAINTS, COOPERATIVE, LOW_BLOWS, TWO_FLIPS, Rules
from duckcover.players.harness import decide, play_game, prepare
from duckcover.saves import record
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot
from helpers import canonical, examples, rules, walk

VARIANT_SETS = [
    (), ("low-blows",), ("two-flips",), ("surprises",), ("constraints",), ("competition",), ("pressure",),
    ("madness",), ("cooperative",), ("surprises", "constraints"), ("low-blows", "competition", "pressure"),
    ("two-flips", "constraints", "surprises"), ("cooperative", "low-blows"), ("low-blows", "surprises"),
    ("constraints", "low-blows"), ("constraints", "competition", "pressure"),
]
# A splash table (a box owner may supply one) under which ducks 1-3 are worth the most: with
# max_by=splashes, Constraints' ruling "Max never takes 1-3" then decides what Max moves.
LOW_CARDS_COSTLY = (9, 8, 7, 1, 1, 2, 2, 3, 3, 4, 4, 5)
PER_ROUND = tuple(v for v in ("competition", "constraints", "surprises", "low-blows", "two-flips", "madness"))


@st.composite
def tables(draw):
    """(rules, bots, seed) for one random game; variants may apply to some rounds only."""
    variants = draw(st.sampled_from(VARIANT_SETS))
    high = 5 if COOPERATIVE in variants else 9
    players = draw(st.integers(2, high))
    rounds = 2 if COOPERATIVE in variants else 3
    limited = {
        name: draw(st.sets(st.integers(1, rounds), min_size=1))
        for name in variants
        if name in PER_ROUND and draw(st.booleans())
    }
    rule_set = Rules(
        variants=frozenset(variants), variant_rounds=limited,
        max_by=draw(st.sampled_from(["number", "splashes"])),
        captain=draw(st.sampled_from(["rotate", "fixed"])),
        splashes=draw(st.sampled_from([packaged_splashes(), LOW_CARDS_COSTLY])),
    )
    kinds = draw(st.lists(st.sampled_from([RandomBot, GreedyBot]), min_size=players, max_size=players))
    return rule_set, kinds, draw(st.integers(0, 2**32 - 1))


def checked_game(rule_set, kinds, seed, on_flip=None, on_choice=None, on_turn=None, on_call=None):
    """Play a whole game like harness.play_game, calling the hooks at every step."""
    bots = [kind() for kind in kinds]
    prepare(bots)
    game = Game(len(bots), rule_set, seed)
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_round()
        while game.phase is Phase.FLIP:
            if on_flip:
                on_flip(game)
            game.flip()
            if on_call:
                on_call(game)
            while game.phase in CHOOSING:
                views = {seat: game.view(seat) for seat in game.awaiting}
                moves = decide(game, bots)
                if on_choice:
                    on_choice(game, views, moves)
                game.play(moves)
            if on_turn:
                on_turn(game)
    return game


# 40 whole random games per property (the fast tier runs 13 of them); the `thorough` profile
# plays ten times as many.
GAMES = settings(max_examples=examples(40), deadline=None)


@GAMES
@given(tables())
def test_twelve_cards_per_player_are_conserved(table):
    rule_set, kinds, seed = table

    def check(game, views=None, moves=None):
        grids = [game.grid(seat) for seat in range(game.n)]
        held = [[c for stack in grid.values() for c in stack] for grid in grids]
        in_hand = [c for seat in range(game.n) for c in (game.received(seat) or ())]  # low blows: gifts
        everything = [c for cards in held for c in cards] + in_hand
        assert len(everything) == len(set(everything)) == 12 * game.n
        if LOW_BLOWS not in game.round_rules.variants:
            assert not in_hand
            for seat, cards in enumerate(held):
                assert sorted(c.number for c in cards) == list(range(1, 13))
                assert {c.family for c in cards} == {seat}

    checked_game(rule_set, kinds, seed, on_flip=check, on_choice=check, on_turn=check)


@GAMES
@given(tables())
def test_captain_cards_are_conserved(table):
    rule_set, kinds, seed = table

    def check(game, views=None, moves=None):
        limbo = list(game.flips) if game.phase in CHOOSING else []
        where = list(game._draw) + list(game.pile) + list(game.discard) + list(game.round.removed) + limbo
        assert Counter(where) == Counter(game.round_rules.deck())
        assert game.draw_size == len(game._draw)

    checked_game(rule_set, kinds, seed, on_flip=check, on_choice=check, on_turn=check)


@GAMES
@given(tables())
def test_a_mirror_that_never_learns_the_removed_cards_keeps_step(table):
    """A network client's mirror: each round dealt `unseen` (the whole card set, no removals
    named), then only the flips and moves everyone sees. Its views are the real game's, its
    decks run out at the same flips, and it ends on the same scores."""
    rule_set, kinds, seed = table
    mirror = Game(len(kinds), rule_set, seed=0, start=False)

    def follow_flip(game):
        log = game.round
        if len(mirror.rounds) < len(game.rounds):
            mirror.start_round(log.layouts, [], log.captain, sorted(log.deck + log.removed), unseen=True)
        mirror.flip(*game.flips)

    def follow_moves(game, views, moves):
        mirror.play(moves)

    def same_view(game, views=None, moves=None):
        seen = [(mirror.view(s), game.view(s)) for s in range(game.n)]
        assert all(a._replace(grids=()) == b._replace(grids=()) for a, b in seen)
        assert [dict(grid.cells) for grid in mirror.view(0).grids] == [dict(grid.cells) for grid in game.view(0).grids]
        assert len(mirror.round.reshuffles) == len(game.round.reshuffles)

    game = checked_game(rule_set, kinds, seed, on_call=follow_flip, on_choice=follow_moves, on_turn=same_view)
    assert mirror.totals == game.totals and mirror.over


@GAMES
@given(tables())
def test_every_applied_move_was_legal_from_the_seats_view(table):
    rule_set, kinds, seed = table
    checked = []

    def check(game, views, moves):
        for seat, move in enumerate(moves):
            if seat in views:
                assert move in views[seat].legal_moves()
                assert move in game.legal_moves(seat)
                checked.append(move)
            else:
                assert move is None and game.legal_moves(seat) == []

    game = checked_game(rule_set, kinds, seed, on_choice=check)
    assert len(checked) >= sum(1 for log in game.rounds for t in log.turns for m in t.moves if m is not None)


@GAMES
@given(tables())
def test_a_covered_card_never_becomes_visible_again_within_a_round(table):
    rule_set, kinds, seed = table
    covered: dict[int, set] = {}

    def check(game):
        seen = covered.setdefault(game.round_index, set())
        for seat in range(game.n):
            for stack in game.grid(seat).values():
                assert stack[-1] not in seen, f"{stack[-1]} came back into view"
                seen.update(stack[:-1])

    checked_game(rule_set, kinds, seed, on_flip=check, on_turn=check)


@settings(max_examples=examples(30), deadline=None)
@given(tables(), st.integers(0, 15))
def test_a_player_view_never_contains_the_deck_order(table, at_turn):
    rule_set, kinds, seed = table
    shuffler = random.Random(seed)
    looked = []  # rounds checked: once per round, from turn `at_turn` on

    def check(game):
        if game.turn_number < at_turn or game.draw_size < 3 or game.round_index in looked:
            return
        secret = tuple(game._draw)
        seat = shuffler.randrange(game.n)
        for obj in walk(game.view(seat)):
            assert not isinstance(obj, Game)
            if isinstance(obj, (tuple, list)):
                assert tuple(obj) not in (secret, secret[::-1])
        before = canonical(game.view(seat))
        saved = list(game._draw)
        shuffler.shuffle(game._draw)
        game._version += 1  # rebuild the view from the reordered deck
        assert canonical(game.view(seat)) == before
        game._draw[:] = saved  # put the deck back so the game plays on as seeded
        game._version += 1
        looked.append(game.round_index)

    game = checked_game(rule_set, kinds, seed, on_flip=check)
    assert looked or all(len(log.turns) <= at_turn + 3 for log in game.rounds)  # every round too short


@GAMES
@given(tables())
def test_write_read_replay_gives_the_same_summary(table):
    rule_set, kinds, seed = table
    game = play_game([kind() for kind in kinds], rule_set, seed=seed)
    text = record.dumps(record.to_record(game, bots=[kind.name for kind in kinds]))
    again = record.replay(record.loads(text))
    assert record.summary(again) == record.summary(game)
    assert again.totals == game.totals
    assert again.outcome() == game.outcome()
    assert record.dumps(record.to_record(again, bots=[kind.name for kind in kinds])) == text


@settings(max_examples=examples(30), deadline=None)
@given(tables(), st.integers(0, 60))
def test_a_game_in_progress_replays_to_the_same_position(table, stop):
    rule_set, kinds, seed = table
    bots = [kind() for kind in kinds]
    prepare(bots)
    game = Game(len(bots), rule_set, seed)
    while game.turn_number < stop and game.phase is Phase.FLIP:
        game.flip()
        while game.phase in CHOOSING:
            game.play(decide(game, bots))
    again = record.replay(record.loads(record.dumps(record.to_record(game))))
    assert record.summary(again) == record.summary(game)
    assert again.phase is game.phase


@GAMES
@given(tables())
def test_nobody_quacks_on_max(table):
    rule_set, kinds, seed = table

    def check(game):
        if MAX in game.call.options and CONSTRAINTS not in game.round_rules.variants:
            assert game.awaiting == tuple(range(game.n))

    checked_game(rule_set, kinds, seed, on_call=check)


@GAMES
@given(tables())
def test_max_moves_the_highest_visible_duck_and_under_constraints_never_1_to_3(table):
    """Max's candidates, restated from RULES.md: the visible ducks of the highest number (or
    splashes), leaving out 1-3 under Constraints; a seat showing only 1-3 then does nothing."""
    rule_set, kinds, seed = table

    def rank(number):
        return number if rule_set.max_by == "number" else rule_set.splashes[number - 1]

    def check(game):
        if game.call.kind != "move" or game.call.options != (MAX,):
            return
        for seat in range(game.n):
            tops = [(stack[-1], cell) for cell, stack in game.grid(seat).items()]
            if CONSTRAINTS in game.round_rules.variants:
                tops = [(card, cell) for card, cell in tops if card.number >= 4]
            best = max((rank(card.number) for card, _ in tops), default=None)
            expected = {(card, cell) for card, cell in tops if rank(card.number) == best}
            assert set(game.candidates(seat)) == expected
            assert all(rule_set.for_round(game.round_index).max_key(card.number) >= 0 for card, _ in expected)

    checked_game(rule_set, kinds, seed, on_call=check)


@GAMES
@given(tables())
def test_repeat_repeats_the_previous_flip_or_goes_to_discard(table):
    rule_set, kinds, seed = table
    def check(game):
        if game.flips != (REPEAT,) or LOW_BLOWS in game.round_rules.variants or TWO_FLIPS in game.round_rules.variants:
            return  # their own Repeat rulings are tested in test_rules_variants.py
        resolved = game.phase not in CHOOSING  # a dead Repeat (or one nobody can play) resolves at the flip
        past = game.history[:-1] if resolved else game.history
        previous = past[-1] if past else None
        if previous is None or previous.discarded:
            assert resolved and game.last_turn.call.kind == "dead" and game.last_turn.discarded
            assert game.discard[-1] == REPEAT
        else:
            assert game.call == previous.call

    checked_game(rule_set, kinds, seed, on_call=check)


@GAMES
@given(tables())
def test_flipped_cards_go_to_the_discard_only_when_nobody_moved(table):
    rule_set, kinds, seed = table

    def check(game):  # called once every turn has resolved
        turn = game.last_turn
        nobody = all(m is None for m in turn.moves)
        assert turn.discarded == (nobody and TWO_FLIPS not in game.round_rules.variants)
        assert (game.discard if turn.discarded else game.pile)[-len(turn.flips):] == turn.flips

    checked_game(rule_set, kinds, seed, on_turn=check)


@GAMES
@given(tables())
def test_round_end_reason_matches_the_table(table):
    rule_set, kinds, seed = table
    game = play_game([kind() for kind in kinds], rule_set, seed=seed)
    for index, result in enumerate(game.results):
        limit = rule_set.for_round(index).discard_limit(game.n)
        grids, discard, _ = game.table(index)
        singles = tuple(seat for seat, grid in enumerate(grids) if len(grid) == 1)
        assert result.single_stack == singles
        if singles:
            assert result.reason == "single-stack"
        elif limit is not None and len(discard) >= limit:
            assert result.reason == "discard-limit" and len(discard) == limit
        else:
            assert result.reason == "turn-cap"
        if limit is None:
            assert discard == ()


@settings(max_examples=examples(15), deadline=None)
@given(tables())
def test_view_legality_agrees_with_the_engine_for_every_nearby_cell(table):
    """legal_moves(), view.is_legal() and game.check() must give one answer for any move."""
    rule_set, kinds, seed = table
    picker = random.Random(seed)

    def check(game, views, moves):
        seat = picker.choice(sorted(views))
        view = views[seat]
        legal = set(view.legal_moves())
        assert legal == set(game.legal_moves(seat))
        cards = [view.received[0]] if view.received else [c for c, _ in view.candidates]
        x0, y0, x1, y1 = view.grid.bounds()
        targets = [None] if game.phase is Phase.GIFT else [
            (x, y) for x in range(x0 - 1, x1 + 2) for y in range(y0 - 1, y1 + 2)]
        for card in cards:
            for to in targets:
                move = Move(card, to)
                assert view.is_legal(move) == (move in legal), move
                try:
                    game.check(seat, move)
                    accepted = True
                except IllegalMoveError:
                    accepted = False
                assert accepted == (move in legal), move

    checked_game(rule_set, kinds, seed, on_choice=check)


def _play_on(game, bots, stop_after=None):
    """Drive `game` like harness.play_game; stop after `stop_after` turns in total, if given."""
    prepare(bots)
    played = 0
    while not game.over and (stop_after is None or played < stop_after):
        if game.phase is Phase.ROUND_OVER:
            game.start_round()
        game.flip()
        while game.phase in CHOOSING:
            game.play(decide(game, bots))
        played += 1
    return game


@settings(max_examples=examples(25), deadline=None)
@given(tables(), st.integers(1, 150))
def test_a_resumed_game_plays_on_exactly_as_the_uninterrupted_one(table, stop):
    rule_set, kinds, seed = table
    whole = play_game([kind() for kind in kinds], rule_set, seed=seed)
    names = [f"{kind.name} {seat + 1}" for seat, kind in enumerate(kinds)]  # play_game's names
    partial = _play_on(Game(names, rule_set, seed), [kind() for kind in kinds], stop_after=stop)
    resumed = record.replay(record.loads(record.dumps(record.to_record(partial))))
    _play_on(resumed, [kind() for kind in kinds])
    assert record.dumps(record.to_record(resumed)) == record.dumps(record.to_record(whole))
