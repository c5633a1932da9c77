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

from ..common.i18n import shown_name, stored_name
from ..common.untrusted import LABEL_MAX, NAME_MAX, excerpt, shown
from ..engine.cards import CARDS, Card, flip_name, parse_flip
from ..engine.codec import decode_move, decode_record_flips, encode_record_turn
from ..engine.errors import DuckError, IllegalMoveError, ParseError, Refusal, RulesError
from ..engine.game import Game, Phase, check_layout
from ..engine.grid import sorted_stacks
from ..engine.legality import why_no_move
from ..engine.moves import Move, Turn
from ..engine.rules import Rules

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


def reason_of(err: Exception) -> str:
    """An engine error's reason, keeping its `Refusal` (code and values) where it has one:
    `str(err)` would leave a plain English str."""
    reason = err.args[0] if err.args else ""
    if getattr(reason, "code", None):
        return reason
    code = getattr(err, "code", None)  # a RecordError keeps its reason's code on itself
    return Refusal(code, str(err), **getattr(err, "params", {})) if code else str(err)


# --- writing --------------------------------------------------------------------------------
def turn_json(turn: Turn, rules: Rules) -> dict:
    return encode_record_turn(turn, rules.flips_per_turn > 1)


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
    from ..common.files import read_bounded, why

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
        raise RecordError(Refusal("json-too-deep", "not JSON a record can be: nested too deeply")) from None
    except ValueError as err:  # e.g. an integer too long to convert
        raise RecordError(Refusal("json-unreadable", f"not JSON a record can be: {err}")) from None
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
                raise RecordError(Refusal("string-too-long", f"a string of {len(item)} characters (at most {STRING_MAX}): {excerpt(item)}",
                                          length=len(item), most=STRING_MAX, quote=excerpt(item)))
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def read_rules(data: dict) -> Rules:
    raw = data.get("rules", {})
    if not isinstance(raw, dict):
        raise RecordError(Refusal("rules-not-object", "rules must be an object"))
    from ..engine.rules import CAPTAIN, MAX_BY, VARIANTS

    variants = raw.get("variants", [])
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise RecordError(Refusal("variants-not-names", "rules.variants must be a list of names"))
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise RecordError(Refusal("unknown-variant", f"unknown variant {excerpt(unknown[0])} (known: {', '.join(VARIANTS)})",
                                  variant=excerpt(unknown[0]), known=", ".join(VARIANTS)))
    kwargs: dict[str, Any] = {"variants": frozenset(variants)}
    if "variant_rounds" in raw:  # optional: variants that apply to some rounds only
        limited = raw["variant_rounds"]
        if not isinstance(limited, dict) or not all(isinstance(v, list) for v in limited.values()):
            raise RecordError(Refusal("variant-rounds-shape",
                                      "rules.variant_rounds must map variant names to lists of round numbers"))
        unknown = [name for name in limited if name not in VARIANTS]
        if unknown:
            raise RecordError(Refusal("variant-rounds-unknown", f"rules.variant_rounds: unknown variant {excerpt(unknown[0])}",
                                      variant=excerpt(unknown[0])))
        kwargs["variant_rounds"] = limited
    for key, known in (("max_by", MAX_BY), ("captain", CAPTAIN)):
        if key in raw:
            if raw[key] not in known:
                raise RecordError(Refusal("rules-option", f"rules.{key} must be one of {', '.join(known)}, not {excerpt(raw[key])}",
                                          option=f"rules.{key}", known=", ".join(known), value=excerpt(raw[key])))
            kwargs[key] = raw[key]
    if "splashes" in raw:
        table = raw["splashes"]
        if not (isinstance(table, list) and len(table) == 12
                and all(type(v) is int and 0 <= v <= SPLASH_MAX for v in table)):
            raise RecordError(Refusal("splashes-shape", f"rules.splashes must be 12 whole numbers 0-{SPLASH_MAX}", most=SPLASH_MAX))
        kwargs["splashes"] = tuple(table)
    try:
        return Rules(**kwargs)
    except RulesError as err:
        raise RecordError(reason_of(err)) from None


def read_players(data: dict) -> tuple[list[str], list[str | None]]:
    """The seats' names and bot labels. A name is untrusted text: read as `shown()` makes it
    (control characters and bytes that were not UTF-8 as visible placeholders, at most NAME_MAX
    characters), so every surface that shows it, and every save that writes it back, gets
    printable text. A bot label is cut to LABEL_MAX the same way."""
    players = data.get("players")
    if not isinstance(players, list):
        raise RecordError(Refusal("missing-field", "missing field: players", field="players"))
    if len(players) > 64:  # far beyond any table; refused before any work per seat
        raise RecordError(Refusal("too-many-players", f"{len(players)} players: a table seats at most 7", players=len(players)))
    names, bots = [], []
    for seat, player in enumerate(players):
        if not isinstance(player, dict) or not isinstance(player.get("name"), str):
            raise RecordError(Refusal("player-needs-name", f"players[{seat}] needs a name", index=seat), seat=seat)
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
        raise RecordError(Refusal("missing-field", "missing field: rounds", field="rounds"))
    rounds = data["rounds"]
    if not isinstance(rounds, list):
        raise RecordError(Refusal("not-a-list", "rounds must be a list", field="rounds"))
    seed = data.get("seed")
    first = rounds[0].get("captain") if rounds and isinstance(rounds[0], dict) else 0
    if not (type(first) is int and 0 <= first < len(names)):
        first = 0  # a bad captain is refused with its round's number below
    try:
        game = Game(names, rules, seed if type(seed) is int else 0, first, start=False)
    except RulesError as err:
        raise RecordError(reason_of(err)) from None
    for index, entry in enumerate(rounds):
        _replay_round(game, index + 1, entry, unseen=unseen)
    return game


def _replay_round(game: Game, round_no: int, entry: object, *, unseen: bool = False) -> None:
    if not isinstance(entry, dict):
        raise RecordError(Refusal("round-not-object", "a round must be an object"), round_no)
    if game.phase is not Phase.ROUND_OVER:
        raise RecordError(Refusal("previous-round-open", "the previous round has not ended"), round_no)
    if round_no > game.rules.rounds():
        raise RecordError(Refusal("round-beyond-game", f"the game has only {game.rules.rounds()} rounds",
                                  rounds=game.rules.rounds()), round_no)
    layouts = entry.get("layouts")
    if not isinstance(layouts, list) or len(layouts) != game.n:
        raise RecordError(Refusal("layouts-per-player", f"layouts must hold one layout per player ({game.n})",
                                  players=game.n), round_no)
    for seat, layout in enumerate(layouts):
        try:
            check_layout(layout)
        except ValueError as err:
            raise RecordError(reason_of(err), round_no, seat=seat) from None
    if "captain" not in entry:
        raise RecordError(Refusal("missing-field", "missing field: captain", field="captain"), round_no)
    captain = entry["captain"]
    if not (type(captain) is int and 0 <= captain < game.n):
        raise RecordError(Refusal("captain-seat", f"captain must be a seat 0-{game.n - 1}", last=game.n - 1), round_no)
    removed = _flip_list(entry.get("removed", []), "removed", round_no)
    deck = _flip_list(entry["deck"], "deck", round_no) if "deck" in entry else None
    try:
        game.start_round(layouts, removed, captain, deck, unseen=unseen)
    except IllegalMoveError as err:
        raise RecordError(reason_of(err), round_no) from None
    if "turns" not in entry:
        raise RecordError(Refusal("missing-field", "missing field: turns", field="turns"), round_no)
    turns = entry["turns"]
    if not isinstance(turns, list):
        raise RecordError(Refusal("not-a-list", "turns must be a list", field="turns"), round_no)
    for turn_no, turn in enumerate(turns, start=1):
        if game.phase is not Phase.FLIP:
            raise RecordError(Refusal("round-already-ended", "the round has already ended"), round_no, turn_no)
        _replay_turn(game, turn, round_no, turn_no)
    _check_reshuffles(game, entry, round_no)


def _flip_list(raw: object, field: str, round_no: int) -> list[int]:
    if not isinstance(raw, list):
        raise RecordError(Refusal("not-captain-cards", f"{field} must be a list of captain cards", field=field), round_no)
    try:
        return [parse_flip(item) for item in raw]
    except (ValueError, TypeError) as err:
        raise RecordError(Refusal("bad-captain-card", f"{field}: {err}", field=field,
                                  value=getattr(reason_of(err), "params", {}).get("value", "?")), round_no) from None


def _check_reshuffles(game: Game, entry: dict, round_no: int) -> None:
    """`reshuffles` is what the seed dealt when the draw pile ran out: a record may omit it,
    but one that states it must state what the engine dealt (while a round is being played,
    a record cut short by hand may state later ones too)."""
    if "reshuffles" not in entry:
        return
    raw = entry["reshuffles"]
    if not isinstance(raw, list) or len(raw) > 1000:
        raise RecordError(Refusal("reshuffles-shape", "reshuffles must be a list of draw orders, one per reshuffle"), round_no)
    stated = [_flip_list(order, "reshuffles", round_no) for order in raw]
    realized = game.round.reshuffles
    if (stated if game.phase is Phase.ROUND_OVER or game.over else stated[: len(realized)]) != realized:
        raise RecordError(Refusal("reshuffles-mismatch", "reshuffles do not match the deal the seed gives"), round_no)


def _replay_turn(game: Game, turn: object, round_no: int, turn_no: int) -> None:
    def fail(reason: str, seat: int | None = None) -> RecordError:
        return RecordError(reason, round_no, turn_no, seat)

    if not isinstance(turn, dict):
        raise fail(Refusal("turn-not-object", "a turn must be an object"))
    try:
        game.flip(*decode_record_flips(turn, game.round_rules.flips_per_turn == 2))
    except ValueError as err:  # ParseError and IllegalMoveError are ValueErrors
        raise fail(reason_of(err)) from None
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
        raise fail(Refusal("missing-field", f"missing field: {field}", field=field))
    if len(raw) != game.n:
        raise fail(Refusal("entries-per-player", f"{field} must hold one entry per player ({game.n}), not {len(raw)}",
                          field=field, players=game.n, got=len(raw)))
    return [_read_move(game, seat, item, field == "gifts", fail) for seat, item in enumerate(raw)]


def _read_move(game: Game, seat: int, item: object, gift: bool, fail) -> Move | None:
    try:
        return decode_move(item, seat, game.n, gift=gift, need_cell=True,
                           own_card=lambda number: _resolve_card(game, seat, number))
    except ParseError as err:
        raise fail(reason_of(err), seat) from None


def _resolve_card(game: Game, seat: int, number: int) -> Card:
    """The card a record names without its family: the seat's own card with that number,
    else the one card with that number the seat may move now (a gift received)."""
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
