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

Moves are told as the table tells them ("cover 8 with 5", "duck 5 left of 3"), never by grid
coordinates, and each mark comes with its reason in one line (`reason`). Marks read the figures
as they are shown (to 0.1 point), so equal figures get equal marks.

Pure: no Textual. The app runs `review()` in a worker; the command line uses a process pool.
Both keep every judged decision in one cache file per game, key and budget (`cache_path`), so
each reuses what the other judged, and a cancelled review goes on where it stopped.
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
from ..engine.grid import neighbours
from ..engine.moves import Move
from ..engine.view import PlayerView
from ..saves.record import read_players, replay, turn_json

FORMAT = "duckcover-review/1"
VERSION = 2  # bump when figures change for the same record, key and budget (the cache reads it)
CACHE_FORMAT = "duckcover-review-cache/1"
CACHE_LIMIT = 16 * 1024 * 1024  # bytes: a cache file larger than this is not read (it is made again)
BUDGET = 1200  # samples per move at most (the expert's `budget`)
STEPS = BUDGET * 100  # simulated seat moves per decision at most: a round's first rollouts take ~100
PRECISION = 0.1  # points: a played move's cost known this well is known well enough
Z = 2.0  # standard errors: a smaller cost cannot be told from zero, and is never marked
# Thresholds in points per round (the expert's measure: own round score minus the others'
# mean), largest first. Chosen with benchmarks/review.py (docs/review.md).
THRESHOLDS = (("blunder", 2.0), ("mistake", 1.0), ("inaccuracy", 0.5))
SHOWN_DECIMALS = 1  # a cost and its standard error are shown, and marked, to 0.1 point
MARKS = tuple(name for name, _ in THRESHOLDS)
COSTLIEST = 3


class ReviewError(ValueError):
    """A review that cannot be made as asked (an unknown seat): one line for the user."""


Place = tuple[int, int, int]  # (round 1-based, flip 1-based, seat): where a decision is in the game


@dataclass(frozen=True)
class Point:
    """A decision to review: where it is, the seat's view then, and what the seat played."""

    round_index: int
    turn_no: int  # 1-based, the record's turn (flip) in that round
    seat: int
    view: PlayerView
    played: Move

    @property
    def place(self) -> Place:
        return (self.round_index + 1, self.turn_no, self.seat)


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

    @property
    def place(self) -> Place:
        return (self.round, self.flip, self.seat)

    def to_json(self, point: Point | None = None) -> dict:
        """The documented fields; with the decision's `point`, the moves and the mark's reason in
        words too (in the current language), beside the record's notation."""
        out = {
            "round": self.round, "flip": self.flip,
            "played": encode_move(self.played, self.seat), "best": encode_move(self.best, self.seat),
            "cost": self.cost, "stderr": self.stderr, "mark": self.mark,
            "legal": self.legal, "samples": self.samples,
        }
        if point is not None:
            out.update(played_words=move_words(point, self.played), best_words=move_words(point, self.best),
                       reason=reason(point, self))
        return out


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

    def to_json(self, points: dict[Place, Point] | None = None) -> dict:
        points = points or {}
        return {
            "seat": self.seat, "name": self.name, "bot": self.bot,
            "decisions": [d.to_json(points.get(d.place)) for d in self.decisions],
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
    # Every reviewed decision's position (its words come from it); not part of the figures.
    points: dict[Place, Point] = field(default_factory=dict, repr=False, compare=False)
    reused: int = field(default=0, compare=False)  # decisions read from the cache, not judged again

    def to_json(self) -> dict:
        return {
            "format": FORMAT, "key": self.key, "budget": self.budget,
            "thresholds": {name: value for name, value in THRESHOLDS}, "z": Z,
            "seats": [seat.to_json(self.points) for seat in self.seats],
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


def move_words(point: Point, move: Move) -> str:
    """A move of this decision as the table says it, from the seat's grid before the move:
    "cover 8 with 5", "duck 5 left of 3" (never the grid's coordinates, which no screen shows)."""
    from ..common.telling import advice_words

    return advice_words(point.view.grid.cells, move, sided=True)


def shown_figure(points: float) -> float:
    """A cost or a standard error as it is shown (and marked): to 0.1 point."""
    return round(points, SHOWN_DECIMALS)


def mark_of(cost: float, stderr: float) -> str | None:
    """The mark, read from the figures as shown: equal figures on screen always get the same
    mark, in one game or another (1.0 ± 0.1 is a mistake wherever it is)."""
    cost, stderr = shown_figure(cost), shown_figure(stderr)
    if cost <= Z * stderr:
        return None  # the expert cannot tell it apart from its best move
    return next((name for name, threshold in THRESHOLDS if cost >= threshold), None)


def reason(point: Point, decision: Decision) -> str | None:
    """Why a marked decision cost what it did, in one line: what the position shows about the
    move played and the expert's best, and the expert's estimate of the difference. None for
    a decision without a mark."""
    from ..common.i18n import local_number, t

    if decision.mark is None:
        return None
    cells, value = point.view.grid.cells, point.view.rules.value
    played, best = decision.played, decision.best
    cost = local_number(shown_figure(decision.cost), 1)

    def height(move: Move) -> int:  # the stack the move builds (a whole stack moves)
        moving = next((len(stack) for stack in cells.values() if stack[-1] == move.card), 1)
        return moving + len(cells.get(move.to, ()))

    def top(cell):
        return cells[cell][-1].number

    def best_neighbour(move: Move) -> int | None:  # the costliest card a duck lands beside
        near = [top(c) for c in neighbours(move.to) if c in cells and cells[c][-1] != move.card]
        return max(near, key=lambda number: (value(number), number)) if near else None

    if best.to in cells and len(cells) == 2 and played.to not in cells:
        return t("review.reason.single_stack", card=best.card.number, cost=cost)
    if played.card != best.card:
        return t("review.reason.other_card", card=best.card.number, cost=cost)
    if best.to in cells and played.to not in cells:
        return t("review.reason.missed_cover", target=top(best.to), worth=value(top(best.to)), cost=cost)
    if best.to in cells:  # both cover
        hidden, best_hidden = value(top(played.to)), value(top(best.to))
        if best_hidden > hidden:
            return t("review.reason.smaller_cover", hidden=hidden, best_hidden=best_hidden, cost=cost)
        if height(played) > height(best):
            return t("review.reason.tall_stack", height=height(played), target=top(played.to), cost=cost)
        return t("review.reason.cover", cost=cost)
    if played.to in cells:  # a cover where the expert ducks
        return t("review.reason.needless_cover", height=height(played), target=top(played.to), cost=cost)
    near, best_near = best_neighbour(played), best_neighbour(best)
    if best_near is not None and (near is None or value(best_near) > value(near)):
        return t("review.reason.duck_beside", target=best_near, worth=value(best_near), cost=cost)
    return t("review.reason.duck", cost=cost)


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
           game: Game | None = None, store: Path | None = None) -> Review:
    """Review the record `data` (RecordError if it is broken; ReviewError for an unknown seat).

    `jobs` > 1 spreads the decisions over that many processes: the figures are the same.
    `progress(done, total)` is called as decisions are judged; setting `cancel` stops the work
    (Cancelled is raised). `store` (see `cache_path`) keeps every decision as soon as it is
    judged and gives back those judged before, by the app or the command line, for any seats:
    a cancelled review resumes where it stopped."""
    game = replay(data) if game is None else game
    chosen = choose_seats(data, seats)
    key = public_key(game) if key is None else str(key)
    every = points(game)  # the worker processes find a decision by its index in this list
    found = [point for point in every if point.seat in chosen]
    kept = read_store(store) if store is not None else {}
    results = {point.place: kept[point.place] for point in found if point.place in kept}
    reused = len(results)
    todo = [(i, point) for i, point in enumerate(every) if point.seat in chosen and point.place not in results]
    total = len(found)
    if progress:
        progress(len(results), total)

    def judged(decisions: list[Decision]) -> None:
        for decision in decisions:
            results[decision.place] = kept[decision.place] = decision
        if store is not None:
            write_store(store, key, budget, kept)
        if progress:
            progress(len(results), total)

    if jobs > 1 and len(todo) > 1:
        _in_pool(data, [i for i, _ in todo], key, budget, jobs, judged, cancel)
    elif todo:
        bot = expert()
        for _, point in todo:
            if cancel is not None and cancel.is_set():
                raise Cancelled
            judged([judge(bot, point, decision_key(key, point), budget)])
    names, bots = read_players(data)
    return assemble(game, names, bots, chosen, key, budget, found, results, reused)


def assemble(game: Game, names, bots, chosen: list[int], key: str, budget: int, found: list[Point],
             results: dict[Place, Decision], reused: int = 0) -> Review:
    """The review of the seats `chosen` from their judged decisions, in the order of the game."""
    out = [SeatReview(seat, names[seat], bots[seat], rounds=len(game.rounds)) for seat in chosen]
    by_seat = {entry.seat: entry for entry in out}
    for point in found:
        by_seat[point.seat].decisions.append(results[point.place])
    return Review(key, budget, out, points={point.place: point for point in found}, reused=reused)


def stored_review(data: dict, game: Game, store: Path, key: str | None = None, budget: int = BUDGET,
                  seats: Iterable[str] | None = ("all",)) -> Review | None:
    """The review of `seats` as the cache keeps it, when every decision of theirs is judged
    there (the replay viewer's marks, the Review screen's second opening); else None."""
    chosen = choose_seats(data, seats)
    found = [point for point in points(game) if point.seat in chosen]
    kept = read_store(store)
    if any(point.place not in kept for point in found):
        return None
    names, bots = read_players(data)
    key = public_key(game) if key is None else str(key)
    return assemble(game, names, bots, chosen, key, budget, found, kept, reused=len(found))


_WORKER: dict = {}


def _worker_start(data: dict) -> None:
    game = replay(data)
    _WORKER.update(points=points(game), bot=expert())


def _worker_judge(index: int, key: str, budget: int) -> tuple[int, Decision]:
    point = _WORKER["points"][index]
    return index, judge(_WORKER["bot"], point, decision_key(key, point), budget)


def _in_pool(data, indices, key, budget, jobs, judged, cancel) -> None:
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
                if done:
                    judged([future.result()[1] for future in done])
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


# --- the cache: one file per game, key and budget, for the app and the command line --------------
def cache_path(game: Game, key: str | None = None, budget: int = BUDGET, folder: Path | None = None) -> Path:
    """The file that keeps a game's judged decisions. Named by what the review reads (the
    record's public content, see `public_key`), the key and the budget, never by the seats
    asked or the record's other fields: the app (every seat) and `duckcover review FILE --seat
    NAME` (one seat, from the file the app saved) share it, each reusing what the other judged."""
    from ..saves.paths import data_dir

    public = public_key(game)
    text = json.dumps([VERSION, public, public if key is None else str(key), budget], ensure_ascii=True)
    name = hashlib.sha256(text.encode()).hexdigest()
    return (folder or data_dir() / "reviews") / f"{name}.json"


def read_store(path: Path) -> dict[Place, Decision]:
    """The decisions kept at `path`, by place; none when it is missing or not a review cache
    (it is made again, never trusted half-read)."""
    from ..common.files import read_bounded

    try:
        raw = json.loads(read_bounded(path, CACHE_LIMIT).decode("utf-8"))
        if raw.get("format") != CACHE_FORMAT:
            return {}
        found = {}
        for entry in raw["decisions"]:
            seat = int(entry["seat"])
            cost, stderr = float(entry["cost"]), float(entry["stderr"])
            decision = Decision(int(entry["round"]), int(entry["flip"]), seat, _move(entry["played"], seat),
                                _move(entry["best"], seat), cost, stderr, mark_of(cost, stderr),
                                int(entry["legal"]), int(entry["samples"]))
            found[decision.place] = decision
        return found
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return {}


def write_store(path: Path, key: str, budget: int, decisions: dict[Place, Decision]) -> None:
    """Keep the decisions judged so far beside the user's games (atomically: a reader sees the
    old file or the new one); a failure to write only costs the next opening."""
    from ..common.files import atomic_write

    # Another review of the same game (the app and the command line at once) may have kept
    # decisions since this one read the file: keep theirs too.
    decisions = {**read_store(path), **decisions}
    kept = [{"seat": d.seat, **d.to_json()} for _, d in sorted(decisions.items())]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps({"format": CACHE_FORMAT, "version": VERSION, "key": key, "budget": budget,
                                       "decisions": kept}) + "\n")
    except OSError:
        pass


def _move(raw: dict, seat: int) -> Move:
    move = decode_move(raw, seat, FAMILIES)  # a ParseError is a ValueError
    if move is None:
        raise ValueError("a decision names a move")
    return move
