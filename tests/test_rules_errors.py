"""Two kinds of refusal: input that cannot be read (ParseError / RecordError) and a move the
rules forbid (IllegalMoveError). Callers tell them apart by type."""
import pytest

from duckcover.engine import DuckError, IllegalMoveError, Move, ParseError, RulesError
from duckcover.saves import record
from helpers import STANDARD, card, new_game


def test_parse_and_illegal_move_errors_are_distinct_types():
    assert not issubclass(IllegalMoveError, ParseError)
    assert not issubclass(ParseError, IllegalMoveError)
    assert issubclass(record.RecordError, DuckError)
    assert not issubclass(record.RecordError, IllegalMoveError)
    assert all(issubclass(cls, DuckError) for cls in (ParseError, IllegalMoveError, RulesError))


@pytest.mark.parametrize("text", ["{", "[1, 2]", "", "nul"])
def test_unreadable_record_raises_record_error_not_illegal_move(text):
    with pytest.raises(record.RecordError) as err:
        record.loads(text)
    assert not isinstance(err.value, IllegalMoveError)


def test_illegal_move_raises_illegal_move_error_naming_the_seat():
    game = new_game([STANDARD] * 3)
    game.flip(5)
    with pytest.raises(IllegalMoveError) as err:
        game.play([Move(card(0, 5), (0, 0)), Move(card(1, 5), (0, 0)), Move(card(2, 5), (3, 0))])
    assert err.value.seat == 2 and "cover" in err.value.reason
    assert not isinstance(err.value, ParseError)


def test_wrong_number_of_moves_is_an_illegal_move():
    game = new_game([STANDARD] * 2)
    game.flip(5)
    with pytest.raises(IllegalMoveError):
        game.play([Move(card(0, 5), (0, 0))])


def test_playing_out_of_phase_is_an_illegal_move():
    game = new_game([STANDARD] * 2)
    with pytest.raises(IllegalMoveError):
        game.play([None, None])
    game.flip(5)
    with pytest.raises(IllegalMoveError):
        game.flip(6)


def test_illegal_move_in_a_record_becomes_a_located_record_error():
    data = {
        "format": "duckcover-record/1",
        "players": [{"name": "A"}, {"name": "B"}],
        "rounds": [{"captain": 0, "layouts": [STANDARD, STANDARD],
                    "turns": [{"flip": "5", "moves": [{"card": 5, "to": [0, 0]}, {"card": 5, "to": [1, 0]}]}]}],
    }
    with pytest.raises(record.RecordError) as err:
        record.replay(data)
    assert (err.value.round_no, err.value.turn_no, err.value.seat) == (1, 1, 1)
    assert str(err.value).startswith("round 1, turn 1, seat 1: cannot cover (1, 0)")


def test_a_refused_flip_changes_nothing():
    from duckcover.engine import MAX, Game, Rules

    game = Game(2, seed=3)
    deck = game.draw_size
    with pytest.raises(IllegalMoveError):
        game.flip(5, 6)  # two cards, but this is not a two-flips game
    assert game.draw_size == deck and game.phase.value == "flip"
    two = Game(2, Rules(variants=frozenset({"two-flips"})), seed=3)
    with pytest.raises(IllegalMoveError):
        two.flip(MAX, MAX)  # there is one Max: the second flip is not in the deck
    assert list(reversed(two._draw)) == two.round.deck  # every card back, in its place
