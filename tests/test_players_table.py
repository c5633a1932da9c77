"""The shared turn (duckcover.players.table.Table), without any face: views fixed at the opening,
private choices, the reveal, stand-ins and time-outs, and its events in order."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from duckcover.engine import CHOOSING, Game, Phase
from duckcover.players.harness import bot_key_for, decide, prepare
from duckcover.players.table import (BY_PLAYER, BY_STANDIN, BY_TIME, NOT_LEGAL, NOTHING_TO_CHOOSE, ChoiceOpened,
                                     Chosen, Flipped, Revealed, Table)
from duckcover.engine import Rules
from duckcover.players.safety import fallback_move
from duckcover.saves.record import to_record
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot

NAMES = ["Ann", "Ben", "Cy"]


def first_legal(view):
    moves = view.legal_moves()
    return moves[0] if moves else None


def bots_deciding(bots, key):
    """A Decider over trusted bots, as the harness asks them (each seat's own coin)."""
    prepare(bots)

    def decide_for(game, seats):
        moves = decide(game, bots, key)
        return {seat: moves[seat] for seat in seats}
    return decide_for


def flip_to_a_choice(table: Table) -> None:
    game = table.game
    while True:
        table.flip()
        if game.phase in CHOOSING:
            return
        assert game.phase is Phase.FLIP, "the round ended before anyone could choose"


def test_every_choice_is_taken_from_the_views_of_the_opening_and_applies_at_once():
    game = Game(NAMES, Rules(), seed=7)
    table = Table(game, is_human=lambda seat: True)
    events = []
    table.listen(events.append)
    flip_to_a_choice(table)
    table.open_choice()
    before = {seat: dict(game.grid(seat)) for seat in range(game.n)}
    views = dict(table.views)
    assert set(views) == set(game.awaiting)
    for seat in views:
        assert not table.ready()
        assert table.choose(seat, first_legal(table.views[seat])) is None
        # nothing applies before the last choice: every grid is as it was at the opening
        assert {s: dict(game.grid(s)) for s in range(game.n)} == before
        assert table.views[seat] is views[seat]
    assert table.ready()
    turns = game.turn_number
    turn = table.resolve()
    assert game.turn_number == turns + 1 and turn is game.last_turn
    revealed = events[-1]
    assert type(revealed) is Revealed and revealed.turn is turn
    assert revealed.moves == [first_legal(views[s]) if s in views else None for s in range(game.n)]
    assert table.views == {} and table.chosen == {}


def test_a_refused_choice_changes_nothing_and_a_seat_chooses_once():
    game = Game(NAMES, Rules(), seed=3)
    table = Table(game, is_human=lambda seat: True)
    flip_to_a_choice(table)
    table.open_choice()
    seat = next(iter(table.views))
    view = table.views[seat]
    cells = {move.to for move in view.legal_moves()}
    off_grid = next((r, c) for r in range(-3, 9) for c in range(-3, 9) if (r, c) not in cells)
    wrong = type(view.legal_moves()[0])(view.legal_moves()[0].card, off_grid)
    assert table.choose(seat, wrong) == NOT_LEGAL
    assert seat not in table.chosen
    assert table.refusal(seat, wrong) is not None
    assert table.choose(seat, first_legal(view)) is None
    assert table.choose(seat, first_legal(view)) == NOTHING_TO_CHOOSE
    outsider = next((s for s in range(game.n) if s not in table.views), None)
    if outsider is not None:
        assert table.choose(outsider, None) == NOTHING_TO_CHOOSE


def test_a_timed_out_seat_gets_the_fallback_move_said_as_such():
    game = Game(NAMES, Rules(), seed=11)
    table = Table(game, is_human=lambda seat: True)
    events = []
    table.listen(events.append)
    flip_to_a_choice(table)
    table.open_choice()
    first, *late = list(table.views)
    table.choose(first, first_legal(table.views[first]))
    expected = {seat: fallback_move(game, seat) for seat in late}
    where = (game.round_index, game.turn_number)
    table.time_up()
    assert table.ready()
    assert {seat: table.chosen[seat] for seat in late} == expected
    assert table.timeouts == [(seat, *where) for seat in late]
    chosen = [e for e in events if isinstance(e, Chosen)]
    assert chosen == [Chosen(first, BY_PLAYER)] + [Chosen(seat, BY_TIME) for seat in late]


def test_a_bot_for_an_away_human_is_a_stand_in_and_stale_answers_are_ignored():
    game = Game(NAMES, Rules(), seed=5)
    away = {1}
    asked = []

    def later(work, done):  # the host runs the bots when it likes: here, when the test says
        asked.append((work, done))

    bots = [GreedyBot() for _ in NAMES]
    table = Table(game, is_human=lambda seat: seat != 2, bot_plays=lambda seat: seat == 2 or seat in away,
                  decide=bots_deciding(bots, bot_key_for(5)), run=later, seat_by_seat=True)
    events = []
    table.listen(events.append)
    flip_to_a_choice(table)
    table.open_choice()
    assert {1, 2} <= set(table.views), "the test needs a turn where the bot and the away seat choose"
    table.ask_bots()
    assert len(asked) == 2  # seat by seat
    stale = list(asked)
    asked.clear()
    table.open_choice()  # the same choice opened again (a reconnect): the old answers are stale
    for work, done in stale:
        done(work())
    assert table.chosen == {}
    table.ask_bots()
    for work, done in asked:
        done(work())
    where = (game.round_index, game.turn_number)
    assert table.standins == [(1, *where)]
    assert set(table.chosen) == {1, 2}
    if 0 in table.views:
        table.choose(0, first_legal(table.views[0]))
    assert table.ready()
    table.resolve()
    assert events[-1].standins == [1]


def test_events_come_in_the_order_of_the_turn():
    game = Game(NAMES, Rules(), seed=2)
    bots = [RandomBot() for _ in NAMES]
    table = Table(game, is_human=lambda seat: seat == 0, decide=bots_deciding(bots, bot_key_for(2)))
    events = []
    table.listen(events.append)
    flip_to_a_choice(table)
    table.open_choice()
    opened = events[-1]
    table.ask_bots()
    if 0 in table.views:
        table.choose(0, first_legal(table.views[0]))
    table.resolve()
    kinds = [type(e) for e in events]
    first_open = kinds.index(ChoiceOpened)
    assert all(k is Flipped for k in kinds[:first_open]) and first_open >= 1
    assert kinds[first_open + 1:-1] == [Chosen] * len(opened.seats)
    assert kinds[-1] is Revealed
    bot_seats = [e.seat for e in events if isinstance(e, Chosen) and e.seat != 0]
    assert bot_seats == [s for s in opened.seats if s != 0]  # in seat order, one answer for all


def play_through_a_table(rule_set: Rules, kinds, seed: int, humans: frozenset[int], seat_by_seat: bool) -> Game:
    """A whole game whose turns go through a Table: bots through `decide`, "humans" choosing
    the first legal move of the view they were given, in reverse seat order."""
    names = [f"P{i}" for i in range(len(kinds))]
    game = Game(names, rule_set, seed)
    bots = [kind() for kind in kinds]
    key = bot_key_for(seed)
    table = Table(game, is_human=humans.__contains__, decide=bots_deciding(bots, key), seat_by_seat=seat_by_seat)
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_round()
        while game.phase is Phase.FLIP:
            table.flip()
            while game.phase in CHOOSING:
                table.open_choice()
                for seat in sorted(table.views, reverse=True):
                    if seat in humans:
                        assert table.choose(seat, first_legal(table.views[seat])) is None
                table.ask_bots()
                assert table.ready()
                table.resolve()
    return game


def play_bare(rule_set: Rules, kinds, seed: int, humans: frozenset[int]) -> Game:
    names = [f"P{i}" for i in range(len(kinds))]
    game = Game(names, rule_set, seed)
    bots = [kind() for kind in kinds]
    prepare(bots)
    key = bot_key_for(seed)
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_round()
        while game.phase is Phase.FLIP:
            game.flip()
            while game.phase in CHOOSING:
                views = {seat: game.view(seat) for seat in game.awaiting}
                moves = decide(game, bots, key)
                for seat in views:
                    if seat in humans:
                        moves[seat] = first_legal(views[seat])
                game.play(moves)
    return game


@settings(max_examples=12, deadline=None, derandomize=True)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1),
       variants=st.sampled_from([(), ("low-blows",), ("two-flips",), ("surprises", "constraints"), ("madness",)]),
       data=st.data(), seat_by_seat=st.booleans())
def test_a_table_plays_the_same_game_as_a_bare_engine_loop(players, seed, variants, data, seat_by_seat):
    kinds = data.draw(st.lists(st.sampled_from([RandomBot, GreedyBot]), min_size=players, max_size=players))
    humans = frozenset(data.draw(st.sets(st.integers(0, players - 1))))
    rule_set = Rules(variants=frozenset(variants))
    through_table = play_through_a_table(rule_set, kinds, seed, humans, seat_by_seat)
    bare = play_bare(rule_set, kinds, seed, humans)
    assert to_record(through_table) == to_record(bare)
