"""The one codec (duckcover.engine.codec): every value the engine can produce survives its trip through
JSON on each wire, and anything else is refused with ParseError, never another exception.
The wire formats themselves are pinned by the golden records (test_golden) and the protocol and
pipe tests; this file states the codec's own laws."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import duckcover
from duckcover.engine import CARDS, FAMILIES, MAX, REPEAT, Call, Move, ParseError, Turn, codec
from duckcover.net import protocol
from duckcover.players.safety import MalformedMove
from duckcover.players.sandbox import move_from_data
from duckcover.saves.record import RecordError, loads, replay
from helpers import examples

PLAYERS = st.integers(2, 7)
COORD = st.one_of(st.integers(-20, 20), st.integers(-codec.CELL_LIMIT, codec.CELL_LIMIT))
CELLS = st.tuples(COORD, COORD)


def cards(families: int = FAMILIES):
    return st.builds(lambda f, n: CARDS[f][n], st.integers(0, families - 1), st.integers(1, 12))


def moves(families: int = FAMILIES, gift: bool = False):
    return st.builds(Move, cards(families), st.none() if gift else st.one_of(st.none(), CELLS))


CALLS = st.one_of(
    st.just(Call("dead")), st.just(Call("gift")), st.just(Call("move")),
    st.builds(lambda options: Call("move", tuple(options)), st.lists(st.integers(1, MAX), min_size=1, max_size=2,
                                                                     unique=True)),
)


@st.composite
def turns(draw):
    players = draw(PLAYERS)
    seat_moves = st.lists(st.one_of(st.none(), moves(players)), min_size=players, max_size=players)
    gifts = draw(st.one_of(st.none(), st.lists(st.one_of(st.none(), moves(players, gift=True)),
                                                 min_size=players, max_size=players)))
    return Turn(tuple(draw(st.lists(st.integers(1, REPEAT), min_size=1, max_size=2))), draw(CALLS),
                tuple(draw(seat_moves)), None if gifts is None else tuple(gifts), draw(st.booleans()))


def wire(data):
    """What the other end reads: the data through JSON text."""
    return json.loads(json.dumps(data))


# --- round trips ---------------------------------------------------------------------------------
@settings(max_examples=examples(200))
@given(cards())
def test_a_card_comes_back_as_the_same_shared_card(card):
    assert codec.decode_card(wire(codec.encode_card(card))) is card


@settings(max_examples=examples(200))
@given(st.one_of(st.none(), moves()))
def test_a_pipe_move_comes_back_equal(move):
    assert codec.decode_card_move(wire(codec.encode_card_move(move))) == move


@settings(max_examples=examples(200))
@given(st.data(), PLAYERS)
def test_a_move_by_number_comes_back_equal_with_or_without_its_seat(data, players):
    seat = data.draw(st.integers(0, players - 1))
    move = data.draw(st.one_of(st.none(), moves(players)))
    for written_for in (seat, None):  # a record leaves out the seat's own family; the protocol never does
        text = wire(codec.encode_move(move, written_for))
        assert codec.decode_move(text, seat, players) == move
        if move is not None and move.card.family == seat:
            assert ("family" in text) == (written_for is None)


@settings(max_examples=examples(30))
@given(turns())
def test_a_whole_turn_comes_back_equal(turn):
    assert codec.decode_turn(wire(codec.encode_turn(turn))) == turn


@settings(max_examples=examples(30))
@given(turns())
def test_a_record_turn_gives_back_its_flips_and_moves(turn):
    two_flips = len(turn.flips) == 2  # the engine flips two a turn under two flips, else one
    written = wire(codec.encode_record_turn(turn, two_flips))
    assert codec.decode_record_flips(written, two_flips) == turn.flips
    n = len(turn.moves)
    assert [codec.decode_move(m, seat, n) for seat, m in enumerate(written["moves"])] == list(turn.moves)
    if turn.gifts is not None:
        assert [codec.decode_move(g, seat, n, gift=True) for seat, g in enumerate(written["gifts"])] == list(turn.gifts)


def test_a_gift_reads_only_its_card_and_a_placed_move_needs_its_cell():
    assert codec.decode_move({"card": 5, "to": "anything"}, 1, 3, gift=True) == Move(CARDS[1][5], None)
    with pytest.raises(ParseError):
        codec.decode_move({"card": 5}, 1, 3, need_cell=True)
    assert codec.decode_move({"card": 5}, 1, 3, own_card=lambda number: CARDS[2][number]).card is CARDS[2][5]


# --- strict decoding -------------------------------------------------------------------------------
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False),
              st.text(max_size=5), st.sampled_from(["max", "repeat", "7", "move", "gift", "dead"])),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(["card", "family", "to", "flips", "flip", "call", "kind",
                                                             "options", "moves", "gifts", "discarded"]),
                                            inner, max_size=6)),
    max_leaves=12,
)
DECODERS = {
    "card": codec.decode_card,
    "cell": codec.decode_cell,
    "call": codec.decode_call,
    "flip": codec.decode_flip,
    "pipe move": codec.decode_card_move,
    "turn": codec.decode_turn,
    "move": lambda data: codec.decode_move(data, 0, 4),
    "placed move": lambda data: codec.decode_move(data, 1, 4, need_cell=True),
    "record flips": lambda data: codec.decode_record_flips(data, True) if isinstance(data, dict) else None,
}


@settings(max_examples=examples(100))
@given(JSON)
def test_malformed_data_is_a_parse_error_and_nothing_else(data):
    for name, decode in DECODERS.items():
        try:
            decode(data)
        except ParseError:
            pass  # anything else propagates and fails the test, naming the decoder below
        except Exception as err:  # noqa: BLE001
            raise AssertionError(f"{name} raised {type(err).__name__}: {err}") from err


@settings(max_examples=examples(30))
@given(turns(), st.sampled_from(["flips", "call", "moves", "gifts", "discarded"]), JSON)
def test_a_turn_with_one_field_spoiled_is_a_parse_error_or_a_turn(turn, field, junk):
    data = wire(codec.encode_turn(turn))
    data[field] = junk
    try:
        assert isinstance(codec.decode_turn(data), Turn)
    except ParseError:
        pass


@pytest.mark.parametrize("bad", [
    {"card": 13}, {"card": 0}, {"card": True}, {"card": 5.0}, {"card": 5, "family": 4}, {"card": 5, "family": -1},
    {"card": 5, "to": [1]}, {"card": 5, "to": [1.0, 2]}, {"card": 5, "to": [codec.CELL_LIMIT + 1, 0]}, [], "5",
])
def test_each_wire_says_a_malformed_move_in_its_own_error(bad):
    with pytest.raises(protocol.ProtocolError):
        protocol.move_from_json(bad, 0, 4)
    with pytest.raises(ParseError):
        codec.decode_move(bad, 0, 4, need_cell=True)


def test_a_parse_error_is_not_an_illegal_move():
    from duckcover.engine import IllegalMoveError

    assert not issubclass(ParseError, IllegalMoveError) and not issubclass(IllegalMoveError, ParseError)
    assert issubclass(protocol.ProtocolError, ParseError)
    with pytest.raises(MalformedMove):
        move_from_data({"card": [0, 1], "to": [True, 0]})


def test_a_record_with_a_malformed_move_names_its_seat():
    golden = Path(__file__).parent / "golden" / "g2_random_seed1.json"
    data = loads(golden.read_text(encoding="utf-8"))
    data["rounds"][0]["turns"][0]["moves"][1] = {"card": 5, "to": [0, "x"]}
    with pytest.raises(RecordError, match=r"round 1, turn 1, seat 1: \"to\" must be a cell"):
        replay(data)


# --- one codec -------------------------------------------------------------------------------------
def test_no_module_but_the_codec_reads_or_writes_a_move_field():
    """A move's "card" key is written in duckcover/engine/codec.py only: a second copy would drift."""
    package = Path(duckcover.__file__).parent
    key = re.compile(r"""["']card["']\s*[:\]]|get\(\s*["']card["']""")
    copies = [str(path.relative_to(package)) for path in package.rglob("*.py")
              if path.name != "codec.py" and key.search(path.read_text(encoding="utf-8"))]
    assert copies == []
