"""Game records (`duckcover-record/1`, docs/record.md): write, read, re-check, summarise.

Reading a record replays it through the engine, so every rule is checked in exactly one
place. Extensions beyond the base format are documented in docs/record.md; all of them
are optional, so a base record reads the same as before.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .cards import CARDS, Card, flip_name, parse_flip
from .errors import DuckError, IllegalMoveError, Refusal, RulesError
from .game import Game, Phase, check_layout
from .grid import sorted_stacks
from .i18n import shown_name, stored_name
from .legality import why_no_move
from .moves import Move, Turn
from .rules import TWO_FLIPS, Rules
from .untrusted import LABEL_MAX, NAME_MAX, excerpt, shown

FORMAT = "duckcover-record/1"
RECORD_MAX = 4 * 1024 * 1024  # bytes: a 3-round game of 7 players is well under 100 KB
STRING_MAX = 256  # characters of any string in a record (names, sounds, labels are cut shorter)
SPLASH_MAX = 99  # a splash value above this is no card's (the published table's are 1-5)
REASON_MAX = 300  # characters of a RecordError's reason: quoted values are excerpts


class RecordError(DuckError):
    """A record that cannot be read or breaks the rules, located by round, turn and seat."""

    def __init__(self, reason: str, round_no: int | None = None, turn_no: int | None = None, seat: int | None = None,
                 file: str | None = None):
        code, params = getattr(reason, "code", None), getattr(reason, "params", {})
        reason = shown(reason[: REASON_MAX * 4], REASON_MAX)  # it may quote record values: printable, bounded
        self.reason, self.round_no, self.turn_no, self.seat, self.file = reason, round_no, turn_no, seat, file
        where = [
            f"{label} {value}"
            for label, value in (("round", round_no), ("turn", turn_no), ("seat", seat))
            if value is not None
        ]
        text = ": ".join([", ".join(where), reason]) if where else reason
        super().__init__(f"{file}: {text}" if file else text)
        self.code, self.params = code, params  # a Refusal's: the UI says it in the player's language

    def in_file(self, name: str) -> "RecordError":
        """The same error, naming the file it came from."""
        err = RecordError(self.reason, self.round_no, self.turn_no, self.seat, file=name)
        err.code, err.params = self.code, self.params
        return err


# --- writing --------------------------------------------------------------------------------
def move_json(move: Move | None, seat: int) -> dict | None:
    if move is None:
        return None
    out: dict[str, Any] = {"card": move.card.number}
    if move.card.family != seat:
        out["family"] = move.card.family  # low blows: a card that came from another seat
    if move.to is not None:
        out["to"] = list(move.to)
    return out


def turn_json(turn: Turn, rules: Rules) -> dict:
    out: dict[str, Any] = {}
    if rules.has(TWO_FLIPS):
        out["flips"] = [flip_name(code) for code in turn.flips]
    else:
        out["flip"] = flip_name(turn.flips[0])
    if turn.gifts is not None:
        out["gifts"] = [move_json(gift, seat) for seat, gift in enumerate(turn.gifts)]
    out["moves"] = [move_json(move, seat) for seat, move in enumerate(turn.moves)]
    return out


def to_record(game: Game, bots: Sequence[str | None] | None = None, extra: dict | None = None) -> dict:
    """The game so far as a record: realized deals, decks and every turn (no RNG needed to replay)."""
    players = []
    for seat, name in enumerate(game.names):
        player: dict[str, Any] = {"name": name if bots and bots[seat] else stored_name(name)}
        if bots and bots[seat]:
            player["bot"] = bots[seat]
        players.append(player)
    rounds = []
    for index, log in enumerate(game.rounds):
        entry: dict[str, Any] = {"captain": log.captain, "layouts": log.layouts}
        if log.removed:
            entry["removed"] = [flip_name(code) for code in log.removed]
        entry["deck"] = [flip_name(code) for code in log.deck]
        if log.reshuffles:
            entry["reshuffles"] = [[flip_name(code) for code in order] for order in log.reshuffles]
        entry["turns"] = [turn_json(turn, game.rules.for_round(index)) for turn in log.turns]
        rounds.append(entry)
    record = {"format": FORMAT, "rules": game.rules.to_json(), "seed": game.seed, "players": players, "rounds": rounds}
    if extra:
        record.update(extra)
    return record


def dumps(record: dict) -> str:
    """Compact rows for layouts and moves keep records readable and diffable."""
    text = json.dumps(record, indent=1, ensure_ascii=False)
    return _compact(text) + "\n"


def _compact(text: str) -> str:
    # Join the innermost lists/objects (numbers, short moves) onto one line.
    import re

    pattern = re.compile(r"[\[{]\n\s*([^\[\]{}]*?)\n\s*[\]}]")
    while True:
        new = pattern.sub(lambda m: m.group(0)[0] + " ".join(s.strip() for s in m.group(1).split("\n")) + m.group(0)[-1], text)
        if new == text:
            return text
        text = new


# --- reading --------------------------------------------------------------------------------
def read_file(path: str | Path) -> dict:
    """The record in a file, read with a bound (RECORD_MAX bytes, regular files only) and checked
    for size as `loads` does. RecordError with one line (never the path: callers name it)."""
    from .files import read_bounded, why

    try:
        data = read_bounded(path, RECORD_MAX)
    except OSError as err:
        raise RecordError(Refusal("cannot-read", f"cannot read: {why(err)}", why=why(err))) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise RecordError(Refusal("not-utf8", f"not UTF-8 text (byte {err.start})", byte=err.start)) from None
    return loads(text)


def loads(text: str) -> dict:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise RecordError(Refusal("not-json", f"not JSON: {err.msg} at line {err.lineno}, column {err.colno}",
                                  line=err.lineno, column=err.colno)) from None
    except RecursionError:
        raise RecordError("not JSON a record can be: nested too deeply") from None
    except ValueError as err:  # e.g. an integer too long to convert
        raise RecordError(f"not JSON a record can be: {err}") from None
    if not isinstance(data, dict):
        raise RecordError(Refusal("not-a-record", "a record is a JSON object"))
    _check_strings(data)
    return data


def _check_strings(value: object) -> None:
    """Refuse a record holding an absurdly long string (a name of a megabyte freezes every
    screen that lays it out). Iterative: the JSON parser already bounded the nesting."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if len(item) > STRING_MAX:
                raise RecordError(f"a string of {len(item)} characters (at most {STRING_MAX}): {excerpt(item)}")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def read_rules(data: dict) -> Rules:
    raw = data.get("rules", {})
    if not isinstance(raw, dict):
        raise RecordError("rules must be an object")
    from .rules import CAPTAIN, MAX_BY, VARIANTS

    variants = raw.get("variants", [])
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise RecordError("rules.variants must be a list of names")
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise RecordError(f"unknown variant {excerpt(unknown[0])} (known: {', '.join(VARIANTS)})")
    kwargs: dict[str, Any] = {"variants": frozenset(variants)}
    if "variant_rounds" in raw:  # optional: variants that apply to some rounds only
        limited = raw["variant_rounds"]
        if not isinstance(limited, dict) or not all(isinstance(v, list) for v in limited.values()):
            raise RecordError("rules.variant_rounds must map variant names to lists of round numbers")
        unknown = [name for name in limited if name not in VARIANTS]
        if unknown:
            raise RecordError(f"rules.variant_rounds: unknown variant {excerpt(unknown[0])}")
        kwargs["variant_rounds"] = limited
    for key, known in (("max_by", MAX_BY), ("captain", CAPTAIN)):
        if key in raw:
            if raw[key] not in known:
                raise RecordError(f"rules.{key} must be one of {', '.join(known)}, not {excerpt(raw[key])}")
            kwargs[key] = raw[key]
    if "splashes" in raw:
        table = raw["splashes"]
        if not (isinstance(table, list) and len(table) == 12
                and all(type(v) is int and 0 <= v <= SPLASH_MAX for v in table)):
            raise RecordError(f"rules.splashes must be 12 whole numbers 0-{SPLASH_MAX}")
        kwargs["splashes"] = tuple(table)
    try:
        return Rules(**kwargs)
    except RulesError as err:
        raise RecordError(str(err)) from None


def read_players(data: dict) -> tuple[list[str], list[str | None]]:
    """The seats' names and bot labels. A name is untrusted text: read as `shown()` makes it
    (control characters and bytes that were not UTF-8 as visible placeholders, at most NAME_MAX
    characters), so every surface that shows it, and every save that writes it back, gets
    printable text. A bot label is cut to LABEL_MAX the same way."""
    players = data.get("players")
    if not isinstance(players, list):
        raise RecordError("missing field: players")
    if len(players) > 64:  # far beyond any table; refused before any work per seat
        raise RecordError(f"{len(players)} players: a table seats at most 7")
    names, bots = [], []
    for seat, player in enumerate(players):
        if not isinstance(player, dict) or not isinstance(player.get("name"), str):
            raise RecordError(f"players[{seat}] needs a name", seat=seat)
        bot = player.get("bot")
        name = shown(player["name"], NAME_MAX)
        names.append(name if isinstance(bot, str) else shown_name(name))  # "You", in today's language
        bots.append(shown(bot, LABEL_MAX) if isinstance(bot, str) else None)
    return names, bots


def read_bot_key(data: dict) -> bytes | None:
    """The `bot_key` extension: the game's secret for its bots' randomness (32 hex digits), or
    None if it is missing or is not one (a resumed game then draws a new key)."""
    text = data.get("bot_key")
    if isinstance(text, str) and len(text) == 32 and all(c in "0123456789abcdef" for c in text):
        return bytes.fromhex(text)
    return None


def add_turn_seats(record: dict, key: str, marks) -> dict:
    """Write a turn extension that lists seats (`standins`: docs/record.md) into a record, in
    place, from (seat, round index, turn index) marks; a turn not yet in the record is skipped."""
    for seat, round_index, turn_index in marks:
        try:
            turn = record["rounds"][round_index]["turns"][turn_index]
        except (IndexError, KeyError, TypeError):
            continue  # the turn is still being played
        seats = turn.setdefault(key, [])
        if seat not in seats:
            seats.append(seat)
            seats.sort()
    return record


def read_turn_seats(data: dict, key: str) -> dict[tuple[int, int], list[int]]:
    """A turn extension that lists seats (`fallbacks`, `standins`: docs/record.md), as
    (round index, turn index) -> seats. Anything malformed is left out: the marks are
    informational and never stop a record from being read."""
    found: dict[tuple[int, int], list[int]] = {}
    rounds = data.get("rounds") if isinstance(data, dict) else None
    for r, entry in enumerate(rounds if isinstance(rounds, list) else []):
        turns = entry.get("turns") if isinstance(entry, dict) else None
        for n, turn in enumerate(turns if isinstance(turns, list) else []):
            seats = turn.get(key) if isinstance(turn, dict) else None
            if isinstance(seats, list):
                valid = sorted({seat for seat in seats if type(seat) is int and 0 <= seat < 9})
                if valid:
                    found[(r, n)] = valid
    return found


def replay(data: dict, *, unseen: bool = False) -> Game:
    """Re-play a record through the engine; RecordError says where and why it breaks.

    `unseen`: a public record, whose Surprises rounds name no removed cards (see
    Game.start_round)."""
    if data.get("format") != FORMAT:
        raise RecordError(Refusal("not-a-record", f"format must be {FORMAT!r}"))
    rules = read_rules(data)
    names, _ = read_players(data)
    if "rounds" not in data:
        raise RecordError("missing field: rounds")
    rounds = data["rounds"]
    if not isinstance(rounds, list):
        raise RecordError("rounds must be a list")
    seed = data.get("seed")
    first = rounds[0].get("captain") if rounds and isinstance(rounds[0], dict) else 0
    if not (type(first) is int and 0 <= first < len(names)):
        first = 0  # a bad captain is refused with its round's number below
    try:
        game = Game(names, rules, seed if type(seed) is int else 0, first, start=False)
    except RulesError as err:
        raise RecordError(str(err)) from None
    for index, entry in enumerate(rounds):
        _replay_round(game, index + 1, entry, unseen=unseen)
    return game


def _replay_round(game: Game, round_no: int, entry: object, *, unseen: bool = False) -> None:
    if not isinstance(entry, dict):
        raise RecordError("a round must be an object", round_no)
    if game.phase is not Phase.ROUND_OVER:
        raise RecordError("the previous round has not ended", round_no)
    if round_no > game.rules.rounds():
        raise RecordError(f"the game has only {game.rules.rounds()} rounds", round_no)
    layouts = entry.get("layouts")
    if not isinstance(layouts, list) or len(layouts) != game.n:
        raise RecordError(f"layouts must hold one layout per player ({game.n})", round_no)
    for seat, layout in enumerate(layouts):
        try:
            check_layout(layout)
        except ValueError as err:
            raise RecordError(str(err), round_no, seat=seat) from None
    if "captain" not in entry:
        raise RecordError("missing field: captain", round_no)
    captain = entry["captain"]
    if not (type(captain) is int and 0 <= captain < game.n):
        raise RecordError(f"captain must be a seat 0-{game.n - 1}", round_no)
    removed = _flip_list(entry.get("removed", []), "removed", round_no)
    deck = _flip_list(entry["deck"], "deck", round_no) if "deck" in entry else None
    try:
        game.start_round(layouts, removed, captain, deck, unseen=unseen)
    except IllegalMoveError as err:
        raise RecordError(str(err), round_no) from None
    if "turns" not in entry:
        raise RecordError("missing field: turns", round_no)
    turns = entry["turns"]
    if not isinstance(turns, list):
        raise RecordError("turns must be a list", round_no)
    for turn_no, turn in enumerate(turns, start=1):
        if game.phase is not Phase.FLIP:
            raise RecordError("the round has already ended", round_no, turn_no)
        _replay_turn(game, turn, round_no, turn_no)
    _check_reshuffles(game, entry, round_no)


def _flip_list(raw: object, field: str, round_no: int) -> list[int]:
    if not isinstance(raw, list):
        raise RecordError(f"{field} must be a list of captain cards", round_no)
    try:
        return [parse_flip(item) for item in raw]
    except (ValueError, TypeError) as err:
        raise RecordError(f"{field}: {err}", round_no) from None


def _check_reshuffles(game: Game, entry: dict, round_no: int) -> None:
    """`reshuffles` is what the seed dealt when the draw pile ran out: a record may omit it,
    but one that states it must state what the engine dealt (while a round is being played,
    a record cut short by hand may state later ones too)."""
    if "reshuffles" not in entry:
        return
    raw = entry["reshuffles"]
    if not isinstance(raw, list) or len(raw) > 1000:
        raise RecordError("reshuffles must be a list of draw orders, one per reshuffle", round_no)
    stated = [_flip_list(order, "reshuffles", round_no) for order in raw]
    realized = game.round.reshuffles
    if (stated if game.phase is Phase.ROUND_OVER or game.over else stated[: len(realized)]) != realized:
        raise RecordError("reshuffles do not match the deal the seed gives", round_no)


def _replay_turn(game: Game, turn: object, round_no: int, turn_no: int) -> None:
    def fail(reason: str, seat: int | None = None) -> RecordError:
        return RecordError(reason, round_no, turn_no, seat)

    if not isinstance(turn, dict):
        raise fail("a turn must be an object")
    two = game.round_rules.has(TWO_FLIPS)
    try:
        if two:
            flips = turn.get("flips")
            if not (isinstance(flips, list) and len(flips) == 2):
                raise fail("under two-flips a turn has \"flips\": two captain cards")
            game.flip(parse_flip(flips[0]), parse_flip(flips[1]))
        else:
            if "flip" not in turn:
                raise fail("missing field: flip")
            game.flip(parse_flip(turn["flip"]))
    except ValueError as err:  # IllegalMoveError is a ValueError too
        raise fail(str(err)) from None
    if game.phase is Phase.GIFT:
        gifts = _read_moves(game, turn.get("gifts"), "gifts", fail)
        _play(game, gifts, fail)
    moves = _read_moves(game, turn.get("moves"), "moves", fail)
    if game.phase in (Phase.MOVE, Phase.PLACE):
        _play(game, moves, fail)
        return
    # Nobody could move: the turn resolved at the flip. Any recorded move is wrong.
    for seat, move in enumerate(moves):
        if move is not None:
            raise fail(why_no_move(game.last_turn.call, None), seat)


def _play(game: Game, moves: list[Move | None], fail) -> None:
    try:
        game.play(moves)
    except IllegalMoveError as err:
        raise fail(err.reason, err.seat) from None


def _read_moves(game: Game, raw: object, field: str, fail) -> list[Move | None]:
    if not isinstance(raw, list):
        raise fail(f"missing field: {field}")
    if len(raw) != game.n:
        raise fail(f"{field} must hold one entry per player ({game.n}), not {len(raw)}")
    return [_read_move(game, seat, item, field == "gifts", fail) for seat, item in enumerate(raw)]


def _read_move(game: Game, seat: int, item: object, gift: bool, fail) -> Move | None:
    if item is None:
        return None
    if not isinstance(item, dict) or type(item.get("card")) is not int or not 1 <= item["card"] <= 12:
        raise fail("a move is null or {\"card\": 1-12, \"to\": [x, y]}", seat)
    number = item["card"]
    family = item.get("family")
    if family is not None and not (type(family) is int and 0 <= family < game.n):
        raise fail(f"family must be a seat 0-{game.n - 1}", seat)
    card = _resolve_card(game, seat, number, family, fail)
    if gift:
        return Move(card, None)
    to = item.get("to")
    if not (isinstance(to, list) and len(to) == 2 and all(type(v) is int for v in to)):
        raise fail("\"to\" must be a cell [x, y] of whole numbers", seat)
    return Move(card, (to[0], to[1]))


def _resolve_card(game: Game, seat: int, number: int, family: int | None, fail) -> Card:
    """The card a record names: `family` if given, else the seat's own card with that number,
    else the one card with that number the seat may move now (a gift received)."""
    if family is not None:
        return CARDS[family][number]
    own = CARDS[seat][number]
    matching = [card for card, _ in game.candidates(seat) if card.number == number]
    return own if own in matching or len(matching) != 1 else matching[0]


# --- the replay output (RECORD.md) ---------------------------------------------------------
def summary(game: Game) -> dict:
    """The JSON that `duckcover replay FILE --json` prints."""
    rounds = []
    for index, log in enumerate(game.rounds):
        grids, discard, pile = game.table(index)
        outcome = log.outcome
        rounds.append(
            {
                "round": index + 1,
                "ended": outcome.reason if outcome else None,
                "turns": len(log.turns),
                "discard": [flip_name(code) for code in discard],
                "captain_pile_top": flip_name(pile[-1]) if pile else None,
                "players": [
                    {
                        "stacks": [[x, y, [card.number for card in stack]] for (x, y), stack in sorted_stacks(grid)],
                        "score": outcome.scores[seat] if outcome else None,
                    }
                    for seat, grid in enumerate(grids)
                ],
            }
        )
    outcome = game.outcome()
    return {
        "rounds": rounds,
        "totals": list(game.totals),
        "winners": list(outcome.winners) if outcome else None,
    }
