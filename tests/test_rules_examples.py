"""The rulebook's worked examples (sources/001_*: "Example of a Game Round", "Example of Round End")."""
from duckcover.engine import REPEAT, Phase
from helpers import card, layout, new_game, rules, turn

CONNIE, JACKSON, DAN, GWEN = range(4)


def _example_table():
    """Connie is captain. Earlier in the round a 4 was flipped and Gwen covered her 5 with it."""
    layouts = [
        layout({(1, 1): 5, (2, 1): 7, (0, 0): 4}),  # Connie: her 5 beside her 7
        layout({(0, 0): 6, (2, 1): 5, (3, 2): 4}),  # Jackson: his 6 on the grid's edge
        layout({(1, 0): 8, (1, 1): 5, (3, 2): 4}),  # Dan: his 8 right above his 5
        layout({(0, 0): 4, (0, 1): 5}),  # Gwen: her 4 above her 5
    ]
    game = new_game(layouts, captain=CONNIE)
    turn(game, 4, {CONNIE: (4, (1, 0)), JACKSON: (4, (2, 2)), DAN: (4, (3, 1)), GWEN: (4, (0, 1))})
    return game


def test_example_game_round_connie_jackson_dan_gwen():
    game = _example_table()
    assert game.captain == CONNIE
    call = game.flip(5)
    assert call.options == (5,)
    # Gwen's 5 is under her 4: she must say Quack; the three others must move their 5.
    assert game.awaiting == (CONNIE, JACKSON, DAN)
    assert game.view(GWEN).must_quack
    game.play(
        [
            _move(CONNIE, (2, 1)),  # Connie covers her 7
            _move(JACKSON, (-1, 0)),  # Jackson ducks beside his 6, outside the starting grid
            _move(DAN, (1, 0)),  # Dan covers his 8, right above his 5 (a cover upward)
            None,  # Gwen: Quack
        ]
    )
    assert game.grid(CONNIE)[(2, 1)] == (card(CONNIE, 7), card(CONNIE, 5))
    assert game.grid(JACKSON)[(-1, 0)] == (card(JACKSON, 5),)
    assert game.grid(JACKSON)[(0, 0)] == (card(JACKSON, 6),)
    assert game.grid(DAN)[(1, 0)] == (card(DAN, 8), card(DAN, 5))
    assert game.grid(GWEN)[(0, 1)] == (card(GWEN, 5), card(GWEN, 4))
    # Someone moved, so the 5 goes onto the Captain pile.
    assert game.pile[-1] == 5 and game.discard == ()
    assert game.last_turn.moves[GWEN] is None


def _move(seat, to):
    from duckcover.engine import Move

    return Move(card(seat, 5), to)


def test_example_round_end_4_players_7th_discard_ends_the_round():
    game = new_game([layout()] * 4, captain=CONNIE)
    everyone = range(4)
    turn(game, REPEAT)  # a first-flip Repeat: discard 1
    turn(game, 2, {s: (2, (0, 0)) for s in everyone})  # every 1 is covered by a 2
    turn(game, 1)
    turn(game, 1)  # discards 2 and 3
    turn(game, 4, {s: (4, (2, 0)) for s in everyone})  # every 3 is covered by a 4
    turn(game, 3)
    turn(game, 3)  # discards 4 and 5
    turn(game, 6, {s: (6, (0, 1)) for s in everyone})  # every 5 is covered by a 6
    turn(game, 5)  # discard 6
    assert len(game.discard) == 6 and game.phase is Phase.FLIP
    turn(game, 5)  # nobody can play it: the 7th discard
    assert len(game.discard) == 7
    assert game.phase is Phase.ROUND_OVER
    assert game.results[0].reason == "discard-limit"


def test_example_round_end_scores_plus_3_minus_4_plus_4_plus_7():
    table = rules()
    ends = {CONNIE: [6, 2], JACKSON: [10], DAN: [1, 4, 6], GWEN: [12, 6]}
    scores = {seat: table.round_score([table.value(n) for n in tops], last_round=False) for seat, tops in ends.items()}
    assert scores == {CONNIE: 3, JACKSON: -4, DAN: 4, GWEN: 7}
