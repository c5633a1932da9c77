"""Running bots safely: every failure becomes a legal fallback move and the game goes on.

A `Referee` stands between the game and its bots, in the arena and in the app. A seat's bot is
either a `Bot` in this process (the built-in bots; any bot when trusted) or a
`duckcover.players.sandbox.BotProcess` (every other bot, in a process of its own). For each decision
the Referee
  - hands the bot a private copy of its view: plain data for a process; for a bot in this
    process its own GridView objects over copies of the cells, and its own Rules (a built-in
    bot called `inline` gets the engine's read-only view, as on the trusted fast path);
  - seeds the bot's rng from the game's secret bot key (never from the game seed);
  - waits at most the hard limit for the answer: a bot in this process runs in a worker thread
    (daemon), unless it is known to return (`inline`: the built-in bots), when it is called
    directly and a late answer is refused afterwards; a bot process that overruns is killed
    and started afresh;
  - checks the answer: an exception, a malformed value, an illegal move or no answer in time is
    replaced by `fallback_move` (deterministic) and recorded as a `Fallback`.

Python cannot kill a thread: a bot in this process stuck in an endless loop keeps its worker
thread until the process ends, and the seat plays fallback moves until the call returns. The
hooks (start_game, start_round, observe) run under the same guard, just before the next
decision; their failures are kept in `Referee.incidents`.

Python has no sandbox either: code in this process can reach the game through the interpreter
(stack frames, gc, sys.modules). That is why a bot you did not write runs in a process of its
own; docs/bots.md says what that defends and what it does not.
"""
from __future__ import annotations

import dataclasses
import math
import queue
import select
import threading
import time
from array import array
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ..common.untrusted import shown
from ..engine.errors import IllegalMoveError
from ..engine.game import Game, Phase
from ..engine.grid import costliest_cover
from ..engine.moves import Move, Turn
from ..engine.view import PlayerView, grid_view
from .answers import REASON_MAX, MalformedMove, describe, sanitize  # noqa: F401 - sanitize: its old home
from .answers import short as _short
from .bot import Bot
from .sandbox import BotFailure, BotProcess, ViewEncoder, move_from_data, turn_data
from .seeding import DecisionRandom, bot_key_for, constructor_seed, decision_key

DEFAULT_HARD_LIMIT = 10.0  # seconds: a decision taking longer is replaced by a fallback
HARD_FACTOR, GRACE = 2.0, 0.5  # a bot with time_limit t is cut off at HARD_FACTOR * t + GRACE
PROCESS_LIMIT = 3600.0  # seconds: the cut-off of a bot process even when the Referee sets none
POLL = 0.05  # seconds between looks at the deadlines while several bot processes think


class Fallback(NamedTuple):
    """A decision the harness made for a bot. `round` and `turn` are 0-based (the record's order)."""

    seat: int
    round: int
    turn: int
    reason: str


def fallback_move(game: Game, seat: int) -> Move | None:
    """The move played for a failing bot: deterministic, legal, and not foolish (see passive_move)."""
    return passive_move(game.view(seat))


def passive_move(view: PlayerView) -> Move | None:
    """What a seat plays when its bot fails, from what that seat sees.

    On a call it covers the adjacent stack worth most (greedy without the coin); otherwise it
    takes the first legal move (engine order). `PassiveBot` plays it on purpose.
    """
    moves = view.legal_moves()
    if not moves:
        return None
    if view.phase is Phase.MOVE:
        cover = costliest_cover(view.grid.cells, view.candidates, view.rules.values)
        if cover is not None:
            return Move(*cover)
    return moves[0]


class PassiveBot(Bot):
    """Plays exactly the fallback move: what a seat does whose bot has failed."""

    name = "passive"
    description = "Plays the Referee's fallback move: covers the adjacent stack worth most, else the first legal move."

    def choose(self, view: PlayerView) -> Move | None:
        return passive_move(view)


def hard_limit_for(bot: Bot | None, default: float | None) -> float | None:
    """The wall time after which the Referee stops waiting for `bot`: its own `time_limit`
    may shorten the Referee's `default`, never lengthen it."""
    try:
        soft = getattr(bot, "time_limit", None)
    except Exception:  # noqa: BLE001 - a raising property: no time limit of its own
        soft = None
    return hard_limit_for_seconds(soft, default)


def hard_limit_for_seconds(soft: object, default: float | None) -> float | None:
    if type(soft) not in (int, float) or not 0 < soft < math.inf:  # bools, nan, inf, 0, negatives
        return default
    asked = HARD_FACTOR * soft + GRACE
    return asked if default is None else min(asked, default)


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


def read_fallbacks(record: dict) -> list[Fallback]:
    """The `fallbacks` turn extension of a record, as Fallbacks (reason: "earlier")."""
    found = []
    for r, round_data in enumerate(record.get("rounds") or []):
        turns = round_data.get("turns") if isinstance(round_data, dict) else None
        for n, turn in enumerate(turns if isinstance(turns, list) else []):
            seats = turn.get("fallbacks") if isinstance(turn, dict) else None
            if isinstance(seats, list):
                found += [Fallback(seat, r, n, "earlier") for seat in seats if type(seat) is int]
    return found


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
            for index, (seat, function, args, _) in enumerate(batch.calls):
                # Ctrl-C never reaches a worker thread: a KeyboardInterrupt here is the bot's own.
                ok, value, elapsed = _call(function, args, BaseException)
                with batch.lock:
                    if batch.abandoned:  # the Referee stopped waiting: free the seat and retire
                        self.busy[seat] = False
                        return
                    batch.results.put((index, ok, value, elapsed))


def _call(function: Callable, args: tuple, catch: type | tuple = (Exception, SystemExit)) -> tuple[bool, Any, float]:
    start = time.perf_counter()
    try:
        value = function(*args)
    except catch as err:  # noqa: BLE001 - any failure, even sys.exit(); inline, not Ctrl-C
        return False, f"raised {describe(err)}", time.perf_counter() - start
    return True, value, time.perf_counter() - start


class Referee:
    """Runs `bots` (one per seat; None for a seat a person plays) safely; see the module docstring.

    A seat's bot is a `Bot` (run in this process: the built-in bots, or any bot when trusted)
    or a `duckcover.players.sandbox.BotProcess` (a bot in a process of its own). `hard_limit` is the
    cut-off in seconds, for every seat or one value per seat; a bot's own `time_limit` may
    lower it, never raise it. None runs in-process calls inline with no cut-off: exceptions
    and bad answers are still caught, but a bot that never returns then hangs the game
    (trusted bots only). `key` is the game's secret for the bots' randomness (None: derived
    from the game seed, see duckcover.players.harness.bot_key_for). `inline` marks the seats (one bool
    each) whose bot is known to return and to leave its view alone, the built-in bots: they are
    called in this thread even under a limit (a thread hand-off costs more than a cheap bot's
    decision), an answer that came after the limit is replaced by a fallback all the same, and
    they get the engine's read-only view rather than a private copy.

    Process bots are asked first and their answers read before any bot in this process runs,
    each taken as it arrives: a process bot's time is its own round trip, never another bot's
    thinking.

    The hooks (start_game, start_round, observe) take their views when called and run just
    before the next decision (or at `close`), under the same guard, off the caller's clock.
    """

    def __init__(
        self,
        bots: Sequence[Bot | BotProcess | None],
        hard_limit: float | Sequence[float | None] | None = DEFAULT_HARD_LIMIT,
        fallback: Callable[[Game, int], Move | None] = fallback_move,
        key: bytes | None = None,
        keep_processes: bool = False,
        inline: Sequence[bool] | None = None,
    ) -> None:
        self.bots = list(bots)
        self._inline = list(inline) if inline is not None else [False] * len(self.bots)
        self._encoder = ViewEncoder()  # what repeats from view to view crosses the pipe encoded once
        self.keep_processes = keep_processes  # close() leaves the bot processes to the caller
        self.hard_limit = hard_limit
        self.fallback = fallback
        self.key = key
        self.fallbacks: list[Fallback] = []
        self.incidents: list[Fallback] = []  # hooks that raised or overran (no move was at stake)
        self.failures: dict[int, str] = {}  # each failing seat's first reason, for a notice
        self.times: list[array] = [array("d") for _ in self.bots]  # seconds per decision, by seat
        defaults = list(hard_limit) if isinstance(hard_limit, Sequence) else [hard_limit] * len(self.bots)
        self._defaults = defaults
        self._limits = [
            None if _is_process(bot) else hard_limit_for(bot, default) for bot, default in zip(self.bots, defaults)
        ]
        self._busy = [False] * len(self.bots)
        self._worker: _Worker | None = None
        self._rules: list = [None] * len(self.bots)
        self._grids: list = [None] * len(self.bots)
        self._due: list[tuple[int, str, PlayerView, tuple]] = []  # hooks to run before the next decision
        self._fresh = {seat for seat, bot in enumerate(self.bots) if _is_process(bot)}  # no bot made yet
        for seat in self._fresh:  # a process the arena reuses starts each game with its restarts unused
            self.bots[seat].restarts = 0
        self._given_up: dict[int, str] = {}  # process seats that will not be asked again, and why
        self._starting: set[int] = set()  # process seats restarted whose bot is not made yet
        self._game: Game | None = None
        self._lock = threading.Lock()

    def label(self, seat: int) -> str:
        """The seat's bot's name (a process bot's once it said hello), for default seat names."""
        bot = self.bots[seat]
        if bot is None:
            return "player"
        if _is_process(bot):
            return bot.info.get("name") or bot.spec
        try:
            return str(bot.name)
        except Exception:  # noqa: BLE001 - a raising property
            return type(bot).__name__

    # --- what the harness calls ----------------------------------------------------------------
    def start_game(self, game: Game) -> None:
        self._defer(game, "start_game", ())

    def start_round(self, game: Game) -> None:
        self._defer(game, "start_round", ())

    def observe(self, game: Game, turn: Turn) -> None:
        self._defer(game, "observe", (turn,))

    def decide(self, game: Game, seats: Sequence[int] | None = None) -> list[Move | None]:
        """Every choosing bot seat's move (or those of `seats`), each legal: the bot's own or a
        recorded fallback. Seats without a bot (None: a person at the table) are left None."""
        self._game = game
        if self.key is None:
            self.key = bot_key_for(game.seed)
        moves: list[Move | None] = [None] * game.n
        step = 1 if game.phase is Phase.PLACE else 0
        self._make_bots(game)
        calls = self._hook_calls()
        requests = []  # (seat, message, view text) for the process bots, all encoded before any is sent
        for seat in game.awaiting:
            bot = self.bots[seat]
            if bot is None or (seats is not None and seat not in seats):
                continue
            if _is_process(bot):
                request = self._process_request(game, seat, step)
                if request is None:
                    moves[seat] = self._fall_back(game, seat, self._given_up.get(seat) or "its process could not be asked")
                else:
                    requests.append((seat, *request))
                continue
            if self._busy[seat]:
                moves[seat] = self._fall_back(game, seat, "still busy with an earlier call that overran")
                continue
            if not isinstance(bot.__dict__.get("rng"), DecisionRandom):
                try:
                    bot.rng = DecisionRandom()  # the bot's RNG is the harness's to seed
                except Exception:  # noqa: BLE001 - a read-only rng property: the bot's own loss
                    pass
            rng = bot.__dict__.get("rng")
            if isinstance(rng, DecisionRandom):
                rng.reseed(self.key, seat, game.round_index, game.turn_number, step)
            calls.append((seat, bot.choose, (self._shown(seat, game.view(seat)),), "choose"))
        asked = []
        for seat, message, view in requests:
            if self._send(seat, message, view):
                asked.append(seat)
            else:
                moves[seat] = self._fall_back(game, seat, self._given_up.get(seat) or "its process could not be asked")
        for seat, move in self._process_moves(game, asked):  # before this process's bots: see the class
            moves[seat] = move
        for seat, ok, value, elapsed, what in self._run(calls):
            if what != "choose":
                if not ok:
                    self._incident(game, seat, f"{what}: {value}")
                continue
            self.times[seat].append(elapsed)
            moves[seat] = self._accept(game, seat, value) if ok else self._fall_back(game, seat, value)
        return moves

    def flush(self) -> None:
        """Run the hooks called since the last decision (the game's last observe, say)."""
        game = self._game
        if game is not None:
            self._make_bots(game)
        calls = self._hook_calls()
        for seat, ok, value, _, what in self._run(calls):
            if not ok and game is not None:
                self._incident(game, seat, f"{what}: {value}")
        for seat, bot in enumerate(self.bots):
            if _is_process(bot) and bot.alive and seat not in self._fresh and seat not in self._starting:
                self._drain(game, seat)

    def close(self) -> None:
        """Run the hooks still due, then let the idle worker thread end (a stuck one ends with the
        process) and end the bots' processes (unless `keep_processes`: the caller reuses them)."""
        self.flush()
        if self._worker is not None:
            self._worker.tasks.put(None)
            self._worker = None
        if not self.keep_processes:
            for bot in self.bots:
                if _is_process(bot):
                    bot.close()

    def output(self, seat: int) -> str:
        """What a process bot printed (bounded, printable); '' for the others."""
        bot = self.bots[seat]
        return bot.output() if _is_process(bot) else ""

    # --- inside: bots in this process ------------------------------------------------------------
    def _accept(self, game: Game, seat: int, answer: Any) -> Move | None:
        try:
            move = sanitize(answer)
            game.check(seat, move)
        except MalformedMove as err:
            return self._fall_back(game, seat, f"malformed answer: {err}")
        except IllegalMoveError as err:
            return self._fall_back(game, seat, f"illegal move {_short(answer)}: {err.reason}")
        except Exception as err:  # noqa: BLE001 - a tuple subclass built to break unpacking, say
            return self._fall_back(game, seat, f"malformed answer: {describe(err)}")
        return move

    def _fall_back(self, game: Game, seat: int, reason: str) -> Move | None:
        self.fallbacks.append(Fallback(seat, game.round_index, game.turn_number, reason))
        self.failures.setdefault(seat, reason)
        return self.fallback(game, seat)

    def _incident(self, game: Game, seat: int, reason: str) -> None:
        self.incidents.append(Fallback(seat, game.round_index, game.turn_number, reason))

    def _defer(self, game: Game, hook: str, extra: tuple) -> None:
        self._game = game
        seats = [seat for seat in range(len(self.bots)) if self._wants(seat, hook)]
        self.queue(hook, {seat: game.view(seat) for seat in seats}, extra)

    def queue(self, hook: str, views: dict[int, PlayerView], extra: tuple = ()) -> None:
        """Have `hook` called with these views (by seat) before the next decision; seats whose
        bot does not use the hook are skipped. Safe to call from another thread."""
        with self._lock:
            self._due.extend((seat, hook, view, extra) for seat, view in views.items() if self._wants(seat, hook))

    def _wants(self, seat: int, hook: str) -> bool:
        bot = self.bots[seat]
        if bot is None:
            return False
        if _is_process(bot):
            return not bot.info or hook in bot.info.get("hooks", ())  # before its hello: maybe
        # Most bots ignore the hooks; skipping their views keeps simulations fast.
        return getattr(type(bot), hook, None) is not getattr(Bot, hook) and not self._busy[seat]

    def _hook_calls(self) -> list:
        """The due hooks: sent to the processes now, returned as calls for the bots in this process."""
        with self._lock:
            due, self._due = self._due, []
        calls = []
        for seat, hook, view, extra in due:
            bot = self.bots[seat]
            if not _is_process(bot):
                calls.append((seat, getattr(bot, hook), (self._shown(seat, view), *extra), hook))
            elif bot.alive and seat not in self._fresh and seat not in self._given_up:
                if bot.info and hook not in bot.info.get("hooks", ()):
                    continue
                message = {"do": hook}
                if extra:
                    message["turn"] = turn_data(extra[0])
                self._send(seat, message, self._encoder.encode(view))
        return calls

    def _shown(self, seat: int, view: PlayerView) -> PlayerView:
        """The view a bot in this process is handed: the engine's own (read-only) view for an
        inline bot, which is built in and trusted not to poke behind it (copying every changed
        grid for every seat was the Referee's largest cost with cheap bots); a private copy
        for any other."""
        return view if self._inline[seat] else self._private(view)

    def _private(self, view: PlayerView) -> PlayerView:
        """The view with this seat's own GridView objects (over copies of the cells) and Rules:
        changing them reaches nobody else.

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
                private = grid_view(dict(grid.cells))  # not even gc.get_referents leads to the engine's dict
                copies[index] = (grid, private)
            grids.append(private)
        return view._replace(grids=tuple(grids), rules=rules[1])

    def _run(self, calls: list):
        """Yield (seat, ok, value_or_reason, seconds, what) for each call, in order."""
        if not calls:
            return
        if all(self._limits[seat] is None or self._inline[seat] for seat, *_ in calls):
            for seat, function, args, what in calls:
                ok, value, elapsed = _call(function, args)
                limit = self._limits[seat]
                if ok and limit is not None and elapsed > limit:  # an inline call cannot be cut off
                    ok, value = False, f"no answer within the hard limit of {limit:g} s"
                yield seat, ok, value, elapsed, what
            return
        while calls:
            if self._worker is None:
                self._worker = _Worker(self._busy)
            batch = _Batch(calls)
            self._worker.tasks.put(batch)
            done = 0
            for seat, _, _, what in calls:
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
                        yield seat, False, f"no answer within the hard limit of {limit:g} s", float(limit), what
                        done += 1
                        break
                yield seat, ok, value, elapsed, what
                done += 1
            calls = calls[done:]

    # --- inside: bots in processes of their own --------------------------------------------------
    def _process_limit(self, seat: int) -> float:
        default = self._defaults[seat]
        limit = hard_limit_for_seconds(self.bots[seat].bot_time_limit, default)
        return PROCESS_LIMIT if limit is None else min(limit, PROCESS_LIMIT)

    def _send(self, seat: int, message: dict, view: str | None = None) -> bool:
        try:
            self.bots[seat].request(message, self._process_limit(seat), view)
        except BotFailure as err:
            self._process_failed(seat, str(err))
            return False
        return True

    def _process_request(self, game: Game, seat: int, step: int) -> tuple[dict, str] | None:
        """The choose request (message, view text) if the seat has a process; None: fall back.

        A replacement process (started as soon as the last one failed) makes its bot here, and
        the answer is read after its hello, new bot and hooks, each within its own limit: a bot
        restarted after an overrun plays the very next decision, even in a game that ends
        before a process could start."""
        bot = self.bots[seat]
        if seat not in self._given_up and not bot.alive:
            self._replace(seat)
        if seat in self._given_up or not bot.alive:
            return None
        if seat in self._starting:
            self._starting.discard(seat)
            self._make_bot(game, seat, restarted=True)
            if seat in self._given_up or not bot.alive:
                return None
        message = {"do": "choose", "rng": decision_key(self.key, seat, game.round_index, game.turn_number, step)}
        return message, self._encoder.encode(game.view(seat))

    def _replace(self, seat: int) -> None:
        """Start the seat's next process at once, so it loads while the game goes on."""
        bot = self.bots[seat]
        if bot.alive or seat in self._given_up:
            return
        if not bot.restart():
            self._given_up[seat] = f"stopped after {bot.restarts} restarts of its process"
            return
        self._starting.add(seat)

    def _make_bots(self, game: Game) -> None:
        """Have every bot process make its bot (before its first hook or decision)."""
        if self.key is None:
            self.key = bot_key_for(game.seed)
        for seat in sorted(self._fresh):
            if self.bots[seat].alive and seat not in self._given_up:
                self._make_bot(game, seat, restarted=False)

    def _make_bot(self, game: Game, seat: int, restarted: bool) -> None:
        """Create the seat's bot in its process; after a restart, tell it the game so far."""
        self._fresh.discard(seat)
        bot = self.bots[seat]
        try:
            bot.start(constructor_seed(self.key, seat), bot.budget, bot.time_limit)
        except BotFailure as err:
            self._process_failed(seat, str(err))
            return
        if restarted:
            view = self._encoder.encode(game.view(seat))
            for hook in ("start_game", "start_round"):
                self._send(seat, {"do": hook}, view)

    def _drain(self, game: Game | None, seat: int, block: bool = True) -> bool:
        """Read the answers before the last request (hooks, hello); True when none is left."""
        bot = self.bots[seat]
        while bot.alive and bot.waiting:
            try:
                answer = bot.answer(block=block)
            except BotFailure as err:
                self._process_failed(seat, str(err))
                return False
            if answer is None:
                return False
            self._settle(game, seat, *answer)
        return bot.alive

    def _settle(self, game: Game | None, seat: int, what: str, message: dict, _elapsed: float) -> None:
        """An answer that is not a move: a hello, a new bot, a hook."""
        if message["ok"]:
            return
        error = _error_text(message)
        if what in ("hello", "new"):
            self._given_up[seat] = f"cannot start: {error}"
            self.failures.setdefault(seat, self._given_up[seat])
            self.bots[seat].kill()
        elif game is not None:
            self._incident(game, seat, f"{what}: {error}")

    def _process_moves(self, game: Game, seats: list[int]):
        """Yield (seat, move) for the process seats asked to choose, each read as soon as it comes,
        so that its time is its own round trip."""
        pending = list(seats)
        while len(pending) > 1:
            for seat in list(pending):
                move = self._process_move(game, seat, block=False)
                if move is not _NOT_YET:
                    pending.remove(seat)
                    yield seat, move
            if len(pending) > 1:  # wake when one answers; the deadlines are checked at each look
                select.select([self.bots[seat] for seat in pending if self.bots[seat].alive], [], [], POLL)
        for seat in pending:
            yield seat, self._process_move(game, seat)

    def _process_move(self, game: Game, seat: int, block: bool = True):
        """The seat's move, or _NOT_YET if `block` is False and its answer has not come."""
        bot = self.bots[seat]
        while True:
            if seat in self._given_up:
                return self._fall_back(game, seat, self._given_up[seat])
            if not bot.alive or not bot.waiting:
                return self._fall_back(game, seat, self.failures.get(seat) or "its process stopped")
            try:
                answer = bot.answer(block=block)
                if answer is None:
                    return _NOT_YET
                what, message, elapsed = answer
            except BotFailure as err:  # the process is stopped: nothing else is waiting
                self._process_failed(seat, str(err))
                return self._fall_back(game, seat, str(err))
            if what != "choose":
                self._settle(game, seat, what, message, elapsed)
                continue
            self.times[seat].append(elapsed)
            if not message["ok"]:
                return self._fall_back(game, seat, _error_text(message))
            try:
                move = move_from_data(message.get("move"))
            except MalformedMove as err:
                return self._fall_back(game, seat, f"malformed answer: {err}")
            return self._accept(game, seat, move)

    def _process_failed(self, seat: int, reason: str) -> None:
        """The process was stopped (late, died, garbled); its replacement starts now."""
        self.failures.setdefault(seat, reason)
        self._replace(seat)


_NOT_YET = object()  # a process answer that has not come yet


def _error_text(message: dict) -> str:
    error = message.get("error")
    return shown(error if isinstance(error, str) else "failed", REASON_MAX)


def _is_process(bot: object) -> bool:
    return isinstance(bot, BotProcess)
