"""The review of a game: what each decision cost, by the expert's estimate (docs/review.md).

For every decision of the reviewed seats (a move on a call with a visible card to move), the
expert is asked, from **that seat's own view at that moment** (`Game.view`: never the deck
order, never the contents of stacks it did not watch), for the estimate of the move played and
of its best move. The cost is the played move's estimate minus the best's, measured on the same
rollouts (common random numbers), with the standard error of that paired difference. A mark
(inaccuracy, mistake, blunder) needs both a cost above its threshold and a cost the expert can
tell from zero (more than Z standard errors): a move the expert cannot tell apart from the best
is never marked.

Deterministic: every decision's samples come from a key made from the record's public content
(what any seat at the table saw: rules, names, captains, layouts, flips and moves) or from
`key` when given, and the decision's place in the game; so the same record gives the same
review however the work is split between processes, and shuffling what nobody saw (the undrawn
deck, the seed, the Surprises removals) changes nothing.

Pure: no Textual. The app runs `review()` in a worker; the command line uses a process pool.
"""
from __future__ import annotations

import hashlib
import json
import math
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.cards import FAMILIES
from ..engine.codec import decode_move, encode_move
from ..engine.game import CHOOSING, Game, Phase
from ..engine.moves import Move
from ..engine.view import PlayerView
from ..saves.record import read_players, replay, turn_json

FORMAT = "duckcover-review/1"
VERSION = 1  # bump when figures change for the same record, key and budget (the cache reads it)
BUDGET = 1200  # samples per move at most (the expert's `budget`)
STEPS = BUDGET * 100  # simulated seat moves per decision at most: a round's first rollouts take ~100
PRECISION = 0.1  # points: a played move's cost known this well is known well enough
Z = 2.0  # standard errors: a smaller cost cannot be told from zero, and is never marked
# Thresholds in points per round (the expert's measure: own round score minus the others'
# mean), largest first. Chosen with benchmarks/review.py (docs/review.md).
THRESHOLDS = (("blunder", 2.0), ("mistake", 1.0), ("inaccuracy", 0.5))
MARKS = tuple(name for name, _ in THRESHOLDS)
COSTLIEST = 3


class ReviewError(ValueError):
    """A review that cannot be made as asked (an unknown seat): one line for the user."""


@dataclass(frozen=True)
class Point:
    """A decision to review: where it is, the seat's view then, and what the seat played."""

    round_index: int
    turn_no: int  # 1-based, the record's turn (flip) in that round
    seat: int
    view: PlayerView
    played: Move


@dataclass(frozen=True)
class Decision:
    round: int  # 1-based
    flip: int  # 1-based turn of the round
    seat: int
    played: Move
    best: Move
    cost: float
    stderr: float
    mark: str | None
    legal: int  # legal moves the seat had
    samples: int  # rollouts the played move got (0: nothing to search)

    def to_json(self) -> dict:
        return {
            "round": self.round, "flip": self.flip,
            "played": encode_move(self.played, self.seat), "best": encode_move(self.best, self.seat),
            "cost": self.cost, "stderr": self.stderr, "mark": self.mark,
            "legal": self.legal, "samples": self.samples,
        }


@dataclass
class SeatReview:
    seat: int
    name: str
    bot: str | None
    decisions: list[Decision] = field(default_factory=list)
    rounds: int = 0  # rounds in the record, for the per-round totals

    @property
    def total_cost(self) -> float:
        return sum(d.cost for d in self.decisions)

    @property
    def mean_cost(self) -> float:
        return self.total_cost / len(self.decisions) if self.decisions else 0.0

    def round_costs(self) -> list[float]:
        costs = [0.0] * self.rounds
        for d in self.decisions:
            costs[d.round - 1] += d.cost
        return costs

    def costliest(self, count: int = COSTLIEST) -> list[Decision]:
        """The costliest decisions, costliest first (ties: the earlier first); free ones never."""
        ranked = sorted((d for d in self.decisions if d.cost > 0), key=lambda d: (-d.cost, d.round, d.flip))
        return ranked[:count]

    def marks(self) -> dict[str, int]:
        return {name: sum(d.mark == name for d in self.decisions) for name in MARKS}

    def to_json(self) -> dict:
        return {
            "seat": self.seat, "name": self.name, "bot": self.bot,
            "decisions": [d.to_json() for d in self.decisions],
            "total_cost": round(self.total_cost, 3), "mean_cost": round(self.mean_cost, 3),
            "round_costs": [round(c, 3) for c in self.round_costs()],
            "marks": self.marks(),
            "costliest": [{"round": d.round, "flip": d.flip, "cost": round(d.cost, 3)} for d in self.costliest()],
        }


@dataclass
class Review:
    key: str
    budget: int
    seats: list[SeatReview]

    def to_json(self) -> dict:
        return {
            "format": FORMAT, "key": self.key, "budget": self.budget,
            "thresholds": {name: value for name, value in THRESHOLDS}, "z": Z,
            "seats": [seat.to_json() for seat in self.seats],
        }


# --- what there is to review ------------------------------------------------------------------
def points(game: Game) -> list[Point]:
    """Every decision of every seat in the replayed `game`: a move on a call with something to
    move. Low-blows gifts and placements are left out (the expert answers them by quick rules)."""
    found: list[Point] = []
    table = Game(list(game.names), game.rules, game.seed, game.first_captain, start=False)
    for index, log in enumerate(game.rounds):
        table.start_round(log.layouts, log.removed, log.captain, log.deck)
        for turn_no, turn in enumerate(log.turns, start=1):
            table.flip(*turn.flips)
            if table.phase is Phase.GIFT:
                table.play(list(turn.gifts or (None,) * table.n))
            if table.phase is Phase.MOVE:
                for seat in table.awaiting:
                    view = table.view(seat)
                    if view.candidates and turn.moves[seat] is not None:
                        found.append(Point(index, turn_no, seat, view, turn.moves[seat]))
            if table.phase in CHOOSING:
                table.play(list(turn.moves))
    return found


def public_key(game: Game) -> str:
    """A key from what every seat saw: rules, names, captains, layouts, flips and moves. Never
    the deck order, the seed or the Surprises removals (nobody saw them)."""
    rounds = [
        {"captain": log.captain, "layouts": log.layouts,
         "turns": [turn_json(turn, game.rules.for_round(index)) for turn in log.turns]}
        for index, log in enumerate(game.rounds)
    ]
    public = {"rules": game.rules.to_json(), "names": list(game.names), "rounds": rounds}
    return hashlib.sha256(json.dumps(public, sort_keys=True).encode()).hexdigest()[:32]


def decision_key(key: str, point: Point) -> int:
    """The samples' key of one decision: the review's key and the decision's place alone."""
    text = f"{key}:{point.round_index}:{point.turn_no}:{point.seat}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 2


def choose_seats(data: dict, asked: Iterable[str] | None) -> list[int]:
    """The seats to review: `asked` holds seat numbers (0-based, as in the JSON), names or `all`;
    none asked: every human (every seat when all are bots). ReviewError for an unknown one."""
    names, bots = read_players(data)
    asked = list(asked or [])
    if not asked:
        humans = [seat for seat, bot in enumerate(bots) if bot is None]
        return humans or list(range(len(names)))
    seats: list[int] = []
    for text in asked:
        if text == "all":
            found = list(range(len(names)))
        elif text.isdigit() and int(text) < len(names):
            found = [int(text)]
        elif text in names:
            found = [names.index(text)]
        else:
            raise ReviewError(f"no seat {text!r} in this game (seats 0-{len(names) - 1}, a player's name, or all)")
        seats += [seat for seat in found if seat not in seats]
    return sorted(seats)


# --- judging one decision -------------------------------------------------------------------------
def expert():
    """The expert, loaded the way the hint loads it (the bot plugins)."""
    from .plugins import resolve_bot

    return resolve_bot("expert", seed=0)


def move_notation(move: Move | None, compact: bool = False) -> str:
    """A move in the review's words: '-' for none, the card alone when it has no cell, else
    card->column,row; `compact` (a screen's narrow column) drops the parentheses."""
    if move is None:
        return "-"
    if move.to is None:
        return str(move.card.number)
    cell = f"{move.to[0]},{move.to[1]}"
    return f"{move.card.number}\u2192{cell if compact else f'({cell})'}"


def mark_of(cost: float, stderr: float) -> str | None:
    if cost <= Z * stderr:
        return None  # the expert cannot tell it apart from its best move
    return next((name for name, threshold in THRESHOLDS if cost >= threshold), None)


def settled(cost: float, stderr: float) -> bool:
    """Whether a cost is known well enough for its mark: clear of every threshold by Z standard
    errors, or known to PRECISION. Samples go where a mark is in doubt (what two reviews with
    different keys would otherwise disagree on), not to decisions already clear."""
    return stderr <= PRECISION or all(abs(cost - threshold) >= Z * stderr for _, threshold in THRESHOLDS)


def judge(bot, point: Point, key: int, budget: int = BUDGET) -> Decision:
    view, played = point.view, point.played
    legal = view.legal_moves()
    if len(legal) == 1:  # nothing to choose: nothing to search, nothing lost
        return Decision(point.round_index + 1, point.turn_no, point.seat, played, played, 0.0, 0.0, None, 1, 0)
    found = bot.estimate(view, key=key, budget=budget, follow=played, precision=settled,
                         steps=budget * STEPS // BUDGET)
    mine = next(e for e in found if e.move == played)
    # The leader's gap is 0 and every other move's is measured against it on shared samples;
    # a followed move is never ahead of the leader, but rounding can leave -0.0.
    cost = round(max(0.0, mine.gap), 3)  # rounded once: the JSON, the cache and the totals agree
    stderr = 0.0 if mine is found[0] else mine.gap_stderr
    stderr = round(stderr if math.isfinite(stderr) else cost, 3)
    return Decision(point.round_index + 1, point.turn_no, point.seat, played, found[0].move, cost, stderr,
                    mark_of(cost, stderr), len(legal), mine.samples)


# --- the whole review ----------------------------------------------------------------------------
Progress = Callable[[int, int], None]


class Cancelled(Exception):
    """The review was cancelled before it ended."""


def review(data: dict, seats: Iterable[str] | None = None, key: str | None = None, budget: int = BUDGET,
           jobs: int = 1, progress: Progress | None = None, cancel: threading.Event | None = None,
           game: Game | None = None) -> Review:
    """Review the record `data` (RecordError if it is broken; ReviewError for an unknown seat).

    `jobs` > 1 spreads the decisions over that many processes: the figures are the same.
    `progress(done, total)` is called as decisions are judged; setting `cancel` stops the work
    (Cancelled is raised)."""
    game = replay(data) if game is None else game
    chosen = choose_seats(data, seats)
    key = public_key(game) if key is None else str(key)
    todo = [(i, point) for i, point in enumerate(points(game)) if point.seat in chosen]
    total = len(todo)
    if progress:
        progress(0, total)
    results: dict[int, Decision] = {}
    if jobs > 1 and total > 1:
        _in_pool(data, [i for i, _ in todo], key, budget, jobs, results, progress, cancel, total)
    else:
        bot = expert()
        for i, point in todo:
            if cancel is not None and cancel.is_set():
                raise Cancelled
            results[i] = judge(bot, point, decision_key(key, point), budget)
            if progress:
                progress(len(results), total)
    names, bots = read_players(data)
    out = [SeatReview(seat, names[seat], bots[seat], rounds=len(game.rounds)) for seat in chosen]
    by_seat = {entry.seat: entry for entry in out}
    for i, _ in todo:
        decision = results[i]
        by_seat[decision.seat].decisions.append(decision)
    return Review(key, budget, out)


_WORKER: dict = {}


def _worker_start(data: dict) -> None:
    game = replay(data)
    _WORKER.update(points=points(game), bot=expert())


def _worker_judge(index: int, key: str, budget: int) -> tuple[int, Decision]:
    point = _WORKER["points"][index]
    return index, judge(_WORKER["bot"], point, decision_key(key, point), budget)


def _in_pool(data, indices, key, budget, jobs, results, progress, cancel, total) -> None:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # spawn: a fresh interpreter per worker, safe from a threaded parent (the app's worker).
    context = multiprocessing.get_context("spawn")
    _start_resource_tracker()
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_worker_start, initargs=(data,)) as pool:
        pending = {pool.submit(_worker_judge, i, key, budget) for i in indices}
        try:
            while pending:
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for future in done:
                    index, decision = future.result()
                    results[index] = decision
                if done and progress:
                    progress(len(results), total)
                if cancel is not None and cancel.is_set():
                    raise Cancelled
        except BaseException:
            for future in pending:
                future.cancel()
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _start_resource_tracker() -> None:
    """multiprocessing starts its resource tracker with sys.stderr's file descriptor; inside the
    app, Textual has replaced sys.stderr by an object without one ("bad value(s) in
    fds_to_keep"). Start the tracker with the real standard error first."""
    from multiprocessing import resource_tracker

    stream = sys.stderr
    try:
        usable = stream is not None and stream.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        usable = False
    if usable:
        return
    sys.stderr = sys.__stderr__
    try:
        resource_tracker.ensure_running()
    finally:
        sys.stderr = stream


# --- reading a review back (the cache) ------------------------------------------------------------
def from_json(raw: dict) -> Review:
    """A review as `Review.to_json` wrote it (the cache); ValueError/KeyError/TypeError if not."""
    if raw.get("format") != FORMAT:
        raise ValueError("not a review")
    seats = []
    for entry in raw["seats"]:
        seat = int(entry["seat"])
        found = SeatReview(seat, str(entry["name"]), entry.get("bot"), rounds=len(entry["round_costs"]))
        for d in entry["decisions"]:
            found.decisions.append(Decision(
                int(d["round"]), int(d["flip"]), seat, _move(d["played"], seat), _move(d["best"], seat),
                float(d["cost"]), float(d["stderr"]), d["mark"] if d["mark"] in MARKS else None,
                int(d["legal"]), int(d["samples"])))
        seats.append(found)
    return Review(str(raw["key"]), int(raw["budget"]), seats)


def _move(raw: dict, seat: int) -> Move:
    move = decode_move(raw, seat, FAMILIES)  # a ParseError is a ValueError
    if move is None:
        raise ValueError("a decision names a move")
    return move


def content_key(data: dict, key: str | None, budget: int, seats: list[int]) -> str:
    """The cache's name for a review: the record's content and what was asked."""
    text = json.dumps([VERSION, data, key, budget, seats], sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def cache_path(data: dict, key: str | None, budget: int, seats: list[int], folder: Path | None = None) -> Path:
    from ..saves.paths import data_dir

    return (folder or data_dir() / "reviews") / f"{content_key(data, key, budget, seats)}.json"


def cached(path: Path) -> Review | None:
    """The review kept at `path`, or None (missing, or not a review: it is made again)."""
    from ..common.files import read_bounded

    try:
        return from_json(json.loads(read_bounded(path, 4 * 1024 * 1024).decode("utf-8")))
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def keep(path: Path, result: Review) -> None:
    """Keep a review beside the user's games; a failure to write only costs the next opening."""
    from ..common.files import atomic_write

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(result.to_json()) + "\n")
    except OSError:
        pass
