"""One codec for the game's values on every wire: cards, cells, flips, calls, moves and turns.

Three wires carry them, each in a shape fixed by its spec (the shapes do not change here):
- the record (RECORD.md, docs/record.md) writes a move by number, `{"card": 7, "to": [x, y]}`,
  with `"family"` only for a card that came from another seat, and flips by name;
- the table protocol (docs/protocol.md) writes the record's move with `"family"` always;
- the bot pipe (docs/bots.md) writes a card as `[family, number]`, a move as
  `{"card": [f, n], "to": [x, y] | null}`, and a whole turn with its flip codes and call.

Encoding builds plain JSON-ready data. Decoding is strict: data that is not a value of
the shape raises ParseError (what cannot be read), never IllegalMoveError (what the rules
forbid here: the engine's to say) and never another exception. Each wire turns ParseError
into its own error (RecordError, ProtocolError, MalformedMove) with its own context.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .cards import CARDS, FAMILIES, MAX, REPEAT, Card, flip_name, parse_flip
from .errors import ParseError, Refusal
from .grid import Cell
from .moves import Call, Move, Turn

CELL_LIMIT = 1 << 16  # |x|, |y| of a cell on the wire: no game comes near; a bound for hostile peers
CALL_KINDS = ("move", "dead", "gift")


def _is_int(value: object, low: int, high: int) -> bool:
    """A whole number in low..high (bools and floats are not: 1.0 and True hash like 1)."""
    return type(value) is int and low <= value <= high


# --- cells and cards ---------------------------------------------------------------------------
def encode_cell(cell: Cell | None) -> list[int] | None:
    return None if cell is None else [cell[0], cell[1]]


def decode_cell(data: object) -> Cell:
    if not (isinstance(data, list) and len(data) == 2 and all(_is_int(v, -CELL_LIMIT, CELL_LIMIT) for v in data)):
        raise ParseError(Refusal("to-not-a-cell", "\"to\" must be a cell [x, y] of whole numbers"))
    return data[0], data[1]


def encode_card(card: Card) -> list[int]:
    """A card as the bot pipe writes it: [family, number]."""
    return [card.family, card.number]


def decode_card(data: object) -> Card:
    if not (isinstance(data, list) and len(data) == 2 and _is_int(data[0], 0, FAMILIES - 1)
            and _is_int(data[1], 1, 12)):
        raise ParseError("a card is [family 0-8, number 1-12]")
    return CARDS[data[0]][data[1]]


# --- flips and calls ---------------------------------------------------------------------------
# A captain card by name, as records write it ("1".."12", "max", "repeat"); the names are the cards'.
encode_flip = flip_name
decode_flip = parse_flip  # ParseError for anything else


def encode_call(call: Call) -> dict:
    return {"kind": call.kind, "options": list(call.options)}


def decode_call(data: object) -> Call:
    if not (isinstance(data, dict) and data.get("kind") in CALL_KINDS and isinstance(data.get("options"), list)
            and len(data["options"]) <= 2 and all(_is_int(v, 1, MAX) for v in data["options"])):
        raise ParseError("a call is {\"kind\": move|dead|gift, \"options\": up to two numbers 1-13}")
    return Call(data["kind"], tuple(data["options"]))


# --- moves by number: the record and the table protocol ------------------------------------------
def encode_move(move: Move | None, seat: int | None = None) -> dict | None:
    """{"card": number, "family": f, "to": [x, y]}, or None. With a `seat` (records), "family" is
    left out when the card is that seat's own; "to" is left out for a gift (no cell)."""
    if move is None:
        return None
    out: dict[str, Any] = {"card": move.card.number}
    if move.card.family != seat:
        out["family"] = move.card.family
    if move.to is not None:
        out["to"] = [move.to[0], move.to[1]]
    return out


def decode_move(data: object, seat: int, players: int, *, gift: bool = False, need_cell: bool = False,
                own_card: Callable[[int], Card] | None = None) -> Move | None:
    """The move a record or a peer wrote for `seat` at a table of `players`, or None.

    A missing "family" means the seat's own card, or whatever `own_card(number)` says (a
    record's reader finds a received gift that way). `gift`: the cell is not read (a gift
    names only its card); `need_cell`: a move without "to" is refused.
    """
    if data is None:
        return None
    if not isinstance(data, dict) or not _is_int(data.get("card"), 1, 12):
        raise ParseError(Refusal("move-shape", "a move is null or {\"card\": 1-12, \"to\": [x, y]}"))
    number, family = data["card"], data.get("family")
    if family is None:
        card = own_card(number) if own_card else CARDS[seat][number]
    elif _is_int(family, 0, players - 1):
        card = CARDS[family][number]
    else:
        raise ParseError(Refusal("family-seat", f"family must be a seat 0-{players - 1}", last=players - 1))
    if gift or (data.get("to") is None and not need_cell):
        return Move(card, None)
    return Move(card, decode_cell(data.get("to")))


# --- moves and turns by card: the bot pipe -------------------------------------------------------
def encode_card_move(move: Move | None) -> dict | None:
    if move is None:
        return None
    return {"card": encode_card(move.card), "to": encode_cell(move.to)}


def decode_card_move(data: object) -> Move | None:
    if data is None:
        return None
    if not (isinstance(data, dict) and "card" in data):
        raise ParseError("not a move {card: [family, number], to: [x, y] | null}")
    to = data.get("to")
    return Move(decode_card(data["card"]), None if to is None else decode_cell(to))


def encode_turn(turn: Turn) -> dict:
    """A whole public turn, every field (the bot pipe's `turn` and a view's history)."""
    return {
        "flips": list(turn.flips),
        "call": encode_call(turn.call),
        "moves": [encode_card_move(m) for m in turn.moves],
        "gifts": None if turn.gifts is None else [encode_card_move(m) for m in turn.gifts],
        "discarded": turn.discarded,
    }


def decode_turn(data: object) -> Turn:
    if not (isinstance(data, dict) and isinstance(data.get("flips"), list) and 1 <= len(data["flips"]) <= 2
            and all(_is_int(code, 1, REPEAT) for code in data["flips"])):
        raise ParseError("a turn is {\"flips\": one or two captain cards, \"call\", \"moves\", \"gifts\", \"discarded\"}")
    moves, gifts, discarded = data.get("moves"), data.get("gifts"), data.get("discarded")
    if not (isinstance(moves, list) and (gifts is None or isinstance(gifts, list)) and type(discarded) is bool):
        raise ParseError("a turn's moves and gifts are lists, and discarded is true or false")
    return Turn(tuple(data["flips"]), decode_call(data.get("call")), tuple(decode_card_move(m) for m in moves),
                None if gifts is None else tuple(decode_card_move(m) for m in gifts), discarded)


# --- turns in a record --------------------------------------------------------------------------
def encode_record_turn(turn: Turn, two_flips: bool) -> dict:
    """A turn as a record writes it: the flip (two under two flips) by name, then each seat's
    gift (low blows) and move by number. The rest follows from replaying it."""
    out: dict[str, Any] = {}
    if two_flips:
        out["flips"] = [encode_flip(code) for code in turn.flips]
    else:
        out["flip"] = encode_flip(turn.flips[0])
    if turn.gifts is not None:
        out["gifts"] = [encode_move(gift, seat) for seat, gift in enumerate(turn.gifts)]
    out["moves"] = [encode_move(move, seat) for seat, move in enumerate(turn.moves)]
    return out


def decode_record_flips(data: dict, two_flips: bool) -> tuple[int, ...]:
    """The flip codes of a record's turn (an object): one, or two under two flips."""
    if two_flips:
        flips = data.get("flips")
        if not (isinstance(flips, list) and len(flips) == 2):
            raise ParseError(Refusal("two-flips-needed", "under two-flips a turn has \"flips\": two captain cards"))
        return decode_flip(flips[0]), decode_flip(flips[1])
    if "flip" not in data:
        raise ParseError(Refusal("missing-field", "missing field: flip", field="flip"))
    return (decode_flip(data["flip"]),)
