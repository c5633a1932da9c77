"""Running bots you do not trust: every failure becomes a legal fallback move and the game goes on.

A `Referee` stands between the game and its bots. For each decision it
  - hands the bot a private copy of its view (its own GridView objects and Rules), so a bot
    that pokes at what it was given can only confuse itself, never the game or another seat;
  - runs `choose` in a worker thread (daemon) and waits at most the hard limit for the answer;
  - checks the answer: an exception, a malformed value, an illegal move or no answer in time is
    replaced by `fallback_move` (deterministic) and recorded as a `Fallback`.

Python cannot kill a thread. A bot stuck in an endless loop keeps its worker thread (and some CPU)
until the process ends; the game is not blocked by it: the Referee abandons that worker, uses a
fallback for the decision, and gives that seat fallback moves until the stuck call returns.
The hooks (start_game, start_round, observe) run under the same guard; their failures are kept
in `Referee.incidents`.

Python has no sandbox either: a bot can reach the game through the interpreter (stack frames,
gc, sys.modules). The guarantee is about the data a bot is given: a view holds no reference to
the Game or its deck, and nothing in it can change the game. The bot contract forbids the rest.
"""
from __future__ import annotations

import dataclasses
import queue
import threading
import time
from array import array
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .bot import Bot
from .cards import CARDS, FAMILIES, Card
from .errors import IllegalMoveError
from .game import Game, Phase
from .grid import cover_targets
from .harness import DecisionRandom, decision_key
from .moves import Move, Turn
from .view import PlayerView

DEFAULT_HARD_LIMIT = 10.0  # seconds: a decision taking longer is replaced by a fallback
HARD_FACTOR, GRACE = 2.0, 0.5  # a bot with time_limit t is cut off at HARD_FACTOR * t + GRACE


class Fallback(NamedTuple):
    """A decision the harness made for a bot. `round` and `turn` are 0-based (the record's order)."""

    seat: int
    round: int
    turn: int
    reason: str


class MalformedMove(ValueError):
    """A bot's answer that is not a Move of a real card to a cell."""


def fallback_move(game: Game, seat: int) -> Move | None:
    """The move played for a failing bot: deterministic, legal, and not foolish.

    On a call it covers the adjacent stack worth most (greedy without the coin); otherwise it
    takes the first legal move (engine order).
    """
    moves = game.legal_moves(seat)
    if not moves:
        return None
    if game.phase is Phase.MOVE:
        grid, value = game.grid(seat), game.rules.value
        best, best_value = None, -1
        for card, origin in game.candidates(seat):
            for to in cover_targets(grid, origin):
                worth = value(grid[to][-1].number)
                if worth > best_value:
                    best, best_value = Move(card, to), worth
        if best is not None:
            return best
    return moves[0]


def hard_limit_for(bot: Bot | None, default: float | None) -> float | None:
    """The wall time after which the Referee stops waiting for `bot`."""
    soft = getattr(bot, "time_limit", None)
    if isinstance(soft, (int, float)) and soft > 0:
        return HARD_FACTOR * soft + GRACE
    return default


def sanitize(answer: Any) -> Move | None:
    """The answer rebuilt from plain engine values, or MalformedMove.

    Rebuilding means the game only ever sees genuine Cards and int tuples, never a bot's
    look-alike object with a custom __eq__ or __hash__.
    """
    if answer is None:
        return None
    if not isinstance(answer, Move):
        raise MalformedMove(f"{_short(answer)} is not a Move")
    card, to = tuple.__getitem__(answer, 0), tuple.__getitem__(answer, 1)
    if not isinstance(card, Card):
        raise MalformedMove(f"{_short(card)} is not a Card")
    family, number = tuple.__getitem__(card, 0), tuple.__getitem__(card, 1)
    if not (type(family) is int and type(number) is int and 0 <= family < FAMILIES and 1 <= number <= 12):
        raise MalformedMove(f"{_short(card)} is not a real card")
    if to is not None:
        if not (isinstance(to, tuple) and len(to) == 2 and all(type(v) is int for v in to)):
            raise MalformedMove(f"{_short(to)} is not a cell (x, y)")
        to = (int(to[0]), int(to[1]))
    return Move(CARDS[family][number], to)


def add_fallbacks(record: dict, fallbacks: Sequence[Fallback]) -> dict:
    """Write the turn extension `"fallbacks": [seats]` (docs/record.md) into a record, in place."""
    for item in fallbacks:
        try:
            turn = record["rounds"][item.round]["turns"][item.turn]
        except (IndexError, KeyError, TypeError):
            continue  # the turn never finished (a game in progress): nothing to annotate
        seats = turn.setdefault("fallbacks", [])
        if item.seat not in seats:
            seats.append(item.seat)
            seats.sort()
    return record


class _Batch:
    """Calls run one after another by one worker; results come back in order."""

    __slots__ = ("calls", "results", "lock", "abandoned")

    def __init__(self, calls: list) -> None:
        self.calls = calls
        self.results: queue.SimpleQueue = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.abandoned = False


class _Worker:
    """A daemon thread that runs bot calls. Given up on (never joined) when a call overruns."""

    def __init__(self, busy: list[bool]) -> None:
        self.tasks: queue.SimpleQueue = queue.SimpleQueue()
        self.busy = busy
        threading.Thread(target=self._loop, name="duckcover-bot", daemon=True).start()

    def _loop(self) -> None:
        while True:
            batch = self.tasks.get()
            if batch is None:
                return
            for index, (seat, function, args) in enumerate(batch.calls):
                ok, value, elapsed = _call(function, args)
                with batch.lock:
                    if batch.abandoned:  # the Referee stopped waiting: free the seat and retire
                        self.busy[seat] = False
                        return
                    batch.results.put((index, ok, value, elapsed))


def _call(function: Callable, args: tuple) -> tuple[bool, Any, float]:
    start = time.perf_counter()
    try:
        value = function(*args)
    except (Exception, SystemExit) as err:  # noqa: BLE001 - any failure, even sys.exit(); not Ctrl-C
        return False, f"raised {_describe(err)}", time.perf_counter() - start
    return True, value, time.perf_counter() - start


class Referee:
    """Runs `bots` (one per seat; None for a seat a person plays) safely; see the module docstring.

    `hard_limit` is the cut-off in seconds, for every seat or one value per seat (a bot's own
    `time_limit` refines it). None runs the calls inline with no cut-off: exceptions and bad
    answers are still caught, but a bot that never returns then hangs the game (trusted bots only).
    """

    def __init__(
        self,
        bots: Sequence[Bot | None],
        hard_limit: float | Sequence[float | None] | None = DEFAULT_HARD_LIMIT,
        fallback: Callable[[Game, int], Move | None] = fallback_move,
    ) -> None:
        self.bots = list(bots)
        self.hard_limit = hard_limit
        self.fallback = fallback
        self.fallbacks: list[Fallback] = []
        self.incidents: list[Fallback] = []  # hooks that raised or overran (no move was at stake)
        self.times: list[array] = [array("d") for _ in self.bots]  # seconds per decision, by seat
        defaults = list(hard_limit) if isinstance(hard_limit, Sequence) else [hard_limit] * len(self.bots)
        self._limits = [hard_limit_for(bot, default) for bot, default in zip(self.bots, defaults)]
        self._busy = [False] * len(self.bots)
        self._worker: _Worker | None = None
        self._rules: list = [None] * len(self.bots)
        self._grids: list = [None] * len(self.bots)

    # --- what the harness calls ----------------------------------------------------------------
    def start_game(self, game: Game) -> None:
        self._hooks(game, "start_game", ())

    def start_round(self, game: Game) -> None:
        self._hooks(game, "start_round", ())

    def observe(self, game: Game, turn: Turn) -> None:
        self._hooks(game, "observe", (turn,))

    def decide(self, game: Game, seats: Sequence[int] | None = None) -> list[Move | None]:
        """Every choosing bot seat's move (or those of `seats`), each legal: the bot's own or a
        recorded fallback. Seats without a bot (None: a person at the table) are left None."""
        moves: list[Move | None] = [None] * game.n
        step = 1 if game.phase is Phase.PLACE else 0
        calls = []
        for seat in game.awaiting:
            if self.bots[seat] is None or (seats is not None and seat not in seats):
                continue
            if self._busy[seat]:
                moves[seat] = self._fall_back(game, seat, "still busy with an earlier call that overran")
                continue
            bot = self.bots[seat]
            if not isinstance(bot.__dict__.get("rng"), DecisionRandom):
                bot.rng = DecisionRandom()  # the bot's RNG is the harness's to seed
            bot.rng.reseed(decision_key(game.seed, seat, game.round_index, game.turn_number, step))
            calls.append((seat, bot.choose, (self._private(game.view(seat)),)))
        for seat, ok, value, elapsed in self._run(calls):
            self.times[seat].append(elapsed)
            moves[seat] = self._accept(game, seat, value) if ok else self._fall_back(game, seat, value)
        return moves

    def close(self) -> None:
        """Let the idle worker thread end (a stuck one ends with the process)."""
        if self._worker is not None:
            self._worker.tasks.put(None)
            self._worker = None

    # --- inside -------------------------------------------------------------------------------
    def _accept(self, game: Game, seat: int, answer: Any) -> Move | None:
        try:
            move = sanitize(answer)
            game.check(seat, move)
        except MalformedMove as err:
            return self._fall_back(game, seat, f"malformed answer: {err}")
        except IllegalMoveError as err:
            return self._fall_back(game, seat, f"illegal move {_short(answer)}: {err.reason}")
        except Exception as err:  # noqa: BLE001 - a tuple subclass built to break unpacking, say
            return self._fall_back(game, seat, f"malformed answer: {_describe(err)}")
        return move

    def _fall_back(self, game: Game, seat: int, reason: str) -> Move | None:
        self.fallbacks.append(Fallback(seat, game.round_index, game.turn_number, reason))
        return self.fallback(game, seat)

    def _hooks(self, game: Game, hook: str, extra: tuple) -> None:
        calls = [
            (seat, getattr(bot, hook), (self._private(game.view(seat)), *extra))
            for seat, bot in enumerate(self.bots)
            # Most bots ignore the hooks; skipping their views keeps simulations fast.
            if bot is not None and getattr(type(bot), hook) is not getattr(Bot, hook) and not self._busy[seat]
        ]
        for seat, ok, value, _ in self._run(calls):
            if not ok:
                self.incidents.append(Fallback(seat, game.round_index, game.turn_number, f"{hook}: {value}"))

    def _private(self, view: PlayerView) -> PlayerView:
        """The view with this seat's own GridView objects and Rules: changing them reaches nobody else.

        A copy is made when the engine's object changes (grids are copy-on-write), so a seat
        keeps its copies between decisions; a bot that spoils them only confuses itself.
        """
        seat = view.seat
        rules = self._rules[seat]
        if rules is None or rules[0] is not view.rules:
            rules = self._rules[seat] = (view.rules, dataclasses.replace(view.rules))
        copies = self._grids[seat]
        if copies is None:
            copies = self._grids[seat] = [(None, None)] * len(view.grids)
        grids = []
        for index, grid in enumerate(view.grids):
            original, private = copies[index]
            if original is not grid:
                private = _clone(grid)
                copies[index] = (grid, private)
            grids.append(private)
        return view._replace(grids=tuple(grids), rules=rules[1])

    def _run(self, calls: list):
        """Yield (seat, ok, value_or_reason, seconds) for each call, in order."""
        if not calls:
            return
        if all(limit is None for limit in self._limits):
            for seat, function, args in calls:
                yield (seat, *_call(function, args))
            return
        while calls:
            if self._worker is None:
                self._worker = _Worker(self._busy)
            batch = _Batch(calls)
            self._worker.tasks.put(batch)
            done = 0
            for seat, _, _ in calls:
                limit = self._limits[seat]
                try:
                    _, ok, value, elapsed = batch.results.get(timeout=limit)
                except queue.Empty:
                    with batch.lock:
                        try:  # it may have answered just as the wait ended
                            _, ok, value, elapsed = batch.results.get_nowait()
                        except queue.Empty:
                            batch.abandoned = True
                            self._busy[seat] = True
                    if batch.abandoned:
                        self._worker = None  # stuck in this call; the rest go to a fresh worker
                        yield seat, False, f"no answer within the hard limit of {limit:g} s", float(limit)
                        done += 1
                        break
                yield seat, ok, value, elapsed
                done += 1
            calls = calls[done:]


def _clone(obj: Any) -> Any:
    """A shallow copy of a slotted object, past a read-only __setattr__ (GridView has one)."""
    cls = type(obj)
    new = object.__new__(cls)  # past a custom __new__ too: the slots are filled below
    for klass in cls.__mro__:
        for slot in getattr(klass, "__slots__", ()):
            try:
                object.__setattr__(new, slot, object.__getattribute__(obj, slot))
            except AttributeError:
                pass  # an unset slot
    return new


def _describe(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__


def _short(value: Any, width: int = 60) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a hostile __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= width else text[: width - 3] + "..."
