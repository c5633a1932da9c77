"""Bot against bot on duplicate deals: every seating plays the same deals, so luck cancels out.

`--games N` means N deals. Each deal (one game seed: layouts, decks, reshuffles) is played once
per rotation of the bot list over the seats: with bots [A, B, C, D], rotation r seats bot i at
seat (i + r) % 4, so every bot plays every seat (and every captaincy order) of every deal.
N deals with k bots are N * k games.

Bots with the same spec are one row: `--bot expert --bot greedy --bot greedy --bot greedy` gives
an `expert` row over 1 seat and a `greedy` row over 3 seats. Per row:
  - mean score: mean total per game per seat;
  - win rate: wins per game per seat, a shared win counting 1/winners (an average bot at a
    k-seat table wins 1/k);
  - paired difference to the field: the seat's total minus the mean total of the other seats
    in the same game (negative is better: lower scores win). Its 95% CI treats each deal as
    one observation (the mean over that deal's rotations and the row's seats), since the
    games of one deal share their cards;
  - decision time median and max (ms), and the number of fallback moves the referee made;
  - rating: every game of the arena (each deal's every rotation, in deal order) rated as the
    statistics rate finished games (duckcover.saves.ratings), so a bot's number means what a
    player's does; bots with the same spec are one player.

Results are computed per deal from the seed alone, and gathered in deal order, so the numbers
are the same for any `jobs` (timings aside).
"""
from __future__ import annotations

import math
import random
import signal
import statistics
from array import array
from collections.abc import Callable, Iterator, Sequence
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

from ..engine.rules import Rules, rules_with_variants
from ..saves.ratings import RatedGame, Standing, bot_key, compute, ranks
from .harness import bot_key_for, constructor_seed, play_game
from .plugins import bot_identity, instantiate, is_builtin, load_bot_class
from .safety import DEFAULT_HARD_LIMIT, Referee
from .sandbox import BotProcess

REASONS_KEPT = 5  # distinct fallback reasons listed per bot; the rest count as "other"

Z95 = 1.959963984540054


_BUILTIN: dict[str, bool] = {}


@dataclass(frozen=True)
class ArenaConfig:
    specs: tuple[str, ...]
    deals: int
    seed: int = 0
    variants: tuple[str, ...] = ()
    budget: int | None = None
    time_limit: float | None = None
    hard_limit: float | None = DEFAULT_HARD_LIMIT
    trusted: bool = False  # every bot in the arena's own process (faster; for bots you trust)

    def in_process(self, spec: str) -> bool:
        return self.trusted or self.builtin(spec)

    @staticmethod
    def builtin(spec: str) -> bool:
        if spec not in _BUILTIN:  # scanning the entry points costs about a millisecond
            _BUILTIN[spec] = is_builtin(spec)
        return _BUILTIN[spec]

    def rules(self) -> Rules:
        return rules_with_variants(list(self.variants))  # NAME or NAME:ROUNDS


@dataclass
class DealResult:
    """One deal played in every rotation; lists are indexed by bot (position in the spec list)."""

    deal: int
    totals: list[list[int]]  # [rotation][bot]
    win_shares: list[list[float]]  # [rotation][bot]
    times: list[array]  # seconds per decision, by bot (float32: 138 decisions a game, millions of games)
    fallbacks: list[int]
    incidents: list[int]
    reasons: list[Counter] = field(default_factory=list)  # by bot: fallback reason -> count
    output: list[str] = field(default_factory=list)  # by bot: what it printed (bounded)
    refused: list[Counter] = field(default_factory=list)  # by bot: operations its walls refused it


def deal_seed(seed: int, deal: int) -> int:
    """The game seed of a deal: stable everywhere (string seeds hash with SHA-512). 128 bits, so
    a bot cannot find it by matching the layouts it sees against candidate seeds."""
    return random.Random(f"duckcover-arena:{seed}:{deal}").getrandbits(128)


def play_deal(config: ArenaConfig, deal: int, processes: dict[int, BotProcess] | None = None) -> DealResult:
    """One deal in every rotation. Bots that do not run here play from `processes` (by bot index,
    reused from deal to deal: each game makes a fresh bot in them); the caller ends them."""
    n = len(config.specs)
    rules = config.rules()
    seed = deal_seed(config.seed, deal)
    key = bot_key_for(seed)
    processes = {} if processes is None else processes
    refused_before = {index: Counter(process.refused) for index, process in processes.items()}
    result = DealResult(deal, [], [], [array("f") for _ in range(n)], [0] * n, [0] * n,
                        [Counter() for _ in range(n)], [""] * n, [Counter() for _ in range(n)])
    for rotation in range(n):
        seat_of = [(bot + rotation) % n for bot in range(n)]
        at_seat = sorted(range(n), key=lambda bot: seat_of[bot])  # bot index sitting at each seat
        bots = [_seat_bot(config, i, constructor_seed(key, seat), processes) for seat, i in enumerate(at_seat)]
        # The built-in bots return: called inline, no thread hand-off (see Referee).
        inline = [config.builtin(config.specs[i]) for i in at_seat]
        referee = Referee(bots, hard_limit=config.hard_limit, key=key, keep_processes=True, inline=inline)
        game = play_game(bots, rules, seed=seed, names=[config.specs[i] for i in at_seat], referee=referee)
        outcome = game.outcome()
        share = 1 / len(outcome.winners)
        result.totals.append([outcome.totals[seat_of[bot]] for bot in range(n)])
        result.win_shares.append([share if seat_of[bot] in outcome.winners else 0.0 for bot in range(n)])
        for bot in range(n):
            result.times[bot].fromlist(referee.times[seat_of[bot]].tolist())  # to float32
        for item in referee.fallbacks:
            result.fallbacks[at_seat[item.seat]] += 1
            result.reasons[at_seat[item.seat]][item.reason] += 1
        for item in referee.incidents:
            result.incidents[at_seat[item.seat]] += 1
    for index, process in processes.items():
        result.output[index] = process.output()
        result.refused[index] = Counter(process.refused) - refused_before.get(index, Counter())
    return result


def _seat_bot(config: ArenaConfig, index: int, seed: int, processes: dict[int, BotProcess]):
    spec = config.specs[index]
    if config.in_process(spec):
        return instantiate(_bot_class(spec), spec, seed, config.budget, config.time_limit)
    process = processes.get(index)
    if process is None:
        process = processes[index] = BotProcess(spec, budget=config.budget, time_limit=config.time_limit)
    return process


_CLASSES: dict[str, type] = {}


def _bot_class(spec: str) -> type:
    # Scanning the installed entry points costs about a millisecond: once per process is enough.
    cls = _CLASSES.get(spec)
    if cls is None:
        cls = _CLASSES[spec] = load_bot_class(spec)[0]
    return cls


def _chunk_results(config: ArenaConfig, deals: range) -> Iterator[DealResult]:
    """The chunk's deals one by one, with one process per bot that does not run here for the
    whole chunk, ended when the chunk is (or when the consumer stops early)."""
    processes: dict[int, BotProcess] = {}
    try:
        for deal in deals:
            yield play_deal(config, deal, processes)
    finally:
        for process in processes.values():
            process.close()


def _play_chunk(job: tuple[ArenaConfig, range]) -> list[DealResult]:
    config, deals = job
    return list(_chunk_results(config, deals))


class WorkerDied(Exception):
    """A --jobs worker process ended in the middle of a run; the message is one line for the user."""


def run(config: ArenaConfig, jobs: int = 1, progress: Callable[[int], None] | None = None) -> list[DealResult]:
    """Every deal's result, in deal order; `progress(k)` is called as k more deals finish.
    WorkerDied if a --jobs worker process dies: the run stops (docs/arena.md says why)."""
    chunk = chunk_size(config.deals, jobs)
    chunks = [range(start, min(start + chunk, config.deals)) for start in range(0, config.deals, chunk)]
    if jobs <= 1 or len(chunks) <= 1:
        parts = map(_play_chunk, [(config, deals) for deals in chunks])
    else:
        parts = _play_in_workers(config, chunks, min(jobs, len(chunks)))
    results: list[DealResult] = []
    for part in parts:
        results.extend(part)
        if progress:
            progress(len(part))
    results.sort(key=lambda result: result.deal)  # workers finish in any order; each deal's result is its seed's
    return results


def chunk_size(deals: int, workers: int) -> int:
    """Deals per task: about eight tasks per worker, so the last ones finish close together,
    and at most 50, which is plenty to amortise a chunk's start (its bot processes)."""
    return max(1, min(50, deals // (workers * 8) or 1))


# --- worker processes (--jobs) ---------------------------------------------------------------------
# Not multiprocessing.Pool: a Pool whose worker is SIGKILLed starts another and waits forever for
# the lost task's result. Nor ProcessPoolExecutor: it notices the death (BrokenProcessPool) but not
# which worker or deal it was, and on Python 3.11 it cannot end its other workers. Here each worker
# has its own pipe and the arena watches its pipe and its process sentinel together, so a death is
# seen at once, with its exit signal and the deal it was playing.

JOIN_LIMIT = 30.0  # seconds a worker may take to end its bot processes and exit when asked


@dataclass(eq=False)
class _Worker:
    process: Any  # a spawned multiprocessing Process
    connection: Any  # the arena's end of its pipe
    deals: deque = field(default_factory=deque)  # its chunk's deals not returned yet; the first is being played


def _play_in_workers(config: ArenaConfig, chunks: list[range], count: int) -> Iterator[list[DealResult]]:
    """The chunks played by `count` spawned worker processes, each deal's result as it arrives
    (in any order); WorkerDied as soon as a worker ends with deals unplayed."""
    import multiprocessing
    from multiprocessing.connection import wait

    from .confine import private_paths

    context = multiprocessing.get_context("spawn")
    waiting = deque(chunks)
    workers: list[_Worker] = []
    try:
        for _ in range(count):
            ours, theirs = context.Pipe()
            # Spawned workers start bots too: they guard themselves as this process did (confine.available).
            process = context.Process(target=_worker_main, args=(theirs, config, private_paths()), daemon=True)
            process.start()
            theirs.close()  # only the worker holds its end now: when it dies, ours reads end-of-file
            workers.append(_Worker(process, ours))
            _next_chunk(config, workers[-1], waiting)
        busy = list(workers)
        while busy:
            handles = {handle: worker for worker in busy for handle in (worker.connection, worker.process.sentinel)}
            for worker in dict.fromkeys(handles[handle] for handle in wait(list(handles))):
                part, ended = _receive(worker)
                if part:
                    yield part
                if ended:  # it exited or died: with deals left to play, the run cannot finish
                    if worker.deals or waiting:
                        raise WorkerDied(_death_line(config, worker))
                    busy.remove(worker)
                elif not worker.deals:
                    _next_chunk(config, worker, waiting)
                    if not worker.deals:  # nothing left to play: it was told to exit
                        busy.remove(worker)
    except BaseException:
        for worker in workers:  # their bot processes die with them (PR_SET_PDEATHSIG, see sandbox)
            if worker.process.is_alive():
                worker.process.terminate()
        raise
    finally:
        for worker in workers:
            worker.process.join(JOIN_LIMIT)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.connection.close()


def _next_chunk(config: ArenaConfig, worker: _Worker, waiting: deque) -> None:
    """The next chunk to the worker, or None (exit) when there is none."""
    chunk = waiting.popleft() if waiting else None
    try:
        worker.connection.send(chunk)
    except OSError:  # its pipe is closed: it died after its last result, before reading this
        raise WorkerDied(_death_line(config, worker)) from None
    if chunk is not None:
        worker.deals.extend(chunk)


def _receive(worker: _Worker) -> tuple[list[DealResult], bool]:
    """The results the worker has sent so far, and whether its pipe has ended (it exited or died)."""
    part: list[DealResult] = []
    while True:
        try:
            if not worker.connection.poll():
                return part, False
            message = worker.connection.recv()
        except (EOFError, OSError):  # OSError: it died in the middle of a message
            return part, True
        if isinstance(message, BaseException):  # the chunk raised: raised here, as Pool.imap did
            raise message
        worker.deals.popleft()
        part.append(message)


def _death_line(config: ArenaConfig, worker: _Worker) -> str:
    worker.process.join(JOIN_LIMIT)  # its pipe ended: it is exiting, for its exit code
    code = worker.process.exitcode
    if code is None:
        how = "its pipe closed"
    elif code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exit status {code}"
    during = f"while playing deal {worker.deals[0]}" if worker.deals else "between two chunks of deals"
    return f"a --jobs worker process died ({how}) {during}, so the arena stopped without figures; {suspects(config)}"


def suspects(config: ArenaConfig) -> str:
    """Which bots can have ended a process that plays the deals, for the line that says it died.
    Every deal seats every bot, so it is not the deal that tells them apart but where they ran.
    Not the bot that was deciding: a limit set on the worker (RLIMIT_CPU) kills it later, during
    anyone's turn. The built-in bots are the project's own and are not named."""
    plugins = [spec for spec in dict.fromkeys(config.specs) if not config.builtin(spec)]
    if not plugins:
        return "every bot is built in: something outside the arena ended it (out of memory?)"
    inside = [spec for spec in plugins if config.in_process(spec)]
    walled = [spec for spec in plugins if not config.in_process(spec)]
    where = []
    if inside:
        where.append(f"{', '.join(inside)} (in the worker's own process: --trusted)")
    if walled:
        where.append(f"{', '.join(walled)} (in a confined process: only by getting through its walls)")
    return f"the bot{'s' if len(plugins) > 1 else ''} that can have ended it: {'; '.join(where)}"


def _worker_main(connection, config: ArenaConfig, private: list[str]) -> None:
    """A --jobs worker: chunks from the pipe (None: exit), each deal's result back as it is played.
    An exception goes back to the arena, which raises it: a worker that cannot start or play is
    an error of the arena's, not a death to blame on a bot."""
    try:
        _guard_worker(private)
        while (deals := connection.recv()) is not None:
            for result in _chunk_results(config, deals):
                connection.send(result)
    except EOFError:  # the arena is gone
        return
    except Exception as err:  # noqa: BLE001 - sent to the arena
        try:
            connection.send(err)
        except Exception:  # noqa: BLE001 - it does not pickle: its words, then
            connection.send(RuntimeError(f"{type(err).__name__}: {err}"))


def _guard_worker(private: list[str]) -> None:
    from .confine import keep_private, protect_game_process

    protect_game_process()
    for path in private:
        keep_private(path)


# --- the table ------------------------------------------------------------------------------------
@dataclass
class BotRow:
    bot: str
    seats: list[int] = field(default_factory=list)  # positions in the spec list

    def to_json(self, results: Sequence[DealResult], players: int) -> dict:
        scores, wins, per_deal_diff = [], [], []
        for deal in results:
            diffs = []
            for totals, shares in zip(deal.totals, deal.win_shares):
                for bot in self.seats:
                    others = (sum(totals) - totals[bot]) / (players - 1)
                    scores.append(totals[bot])
                    wins.append(shares[bot])
                    diffs.append(totals[bot] - others)
            per_deal_diff.append(sum(diffs) / len(diffs))
        median_time, max_time = time_figures(deal.times[bot] for bot in self.seats for deal in results)
        mean_diff = statistics.fmean(per_deal_diff) if per_deal_diff else math.nan
        half = Z95 * statistics.stdev(per_deal_diff) / math.sqrt(len(per_deal_diff)) if len(per_deal_diff) > 1 else None
        return {
            "bot": self.bot,
            "seats": len(self.seats),
            "games": len(scores),
            "mean_score": _round(statistics.fmean(scores)) if scores else None,
            "win_rate": _round(sum(wins) / len(wins)) if wins else None,
            "diff_to_field": {
                "mean": _round(mean_diff),
                "ci95": None if half is None else [_round(mean_diff - half), _round(mean_diff + half)],
            },
            "decisions": sum(len(deal.times[bot]) for bot in self.seats for deal in results),
            "decision_ms": {
                "median": None if median_time is None else _round(median_time * 1000),
                "max": None if max_time is None else _round(max_time * 1000),
            },
            "fallbacks": sum(deal.fallbacks[bot] for deal in results for bot in self.seats),
            "fallback_reasons": self.reasons(results),
            "output": next((deal.output[bot] for deal in results for bot in self.seats if deal.output[bot]), ""),
            "hook_failures": sum(deal.incidents[bot] for deal in results for bot in self.seats),
            # what the walls refused it (EPERM), as Python's audit events show it: docs/bots.md
            "refused_calls": dict(sum((deal.refused[bot] for deal in results for bot in self.seats
                                       if deal.refused), Counter())),
        }


    def reasons(self, results: Sequence[DealResult]) -> dict[str, int]:
        """Why the Referee played for this bot: the most frequent reasons, the rest as "other"."""
        counts: Counter = Counter()
        for deal in results:
            for bot in self.seats:
                counts.update(deal.reasons[bot])
        kept = dict(counts.most_common(REASONS_KEPT))
        other = sum(counts.values()) - sum(kept.values())
        return {**kept, "other": other} if other else kept


BIN = math.log(1.002)  # the median's histogram: bins 0.2% wide, so it is within 0.1%


def time_figures(arrays: Iterator[array]) -> tuple[float | None, float | None]:
    """The median and the max of the decision times in `arrays` (seconds; None if there are
    none), without a list of them all: a million-game tournament makes 140 million. The max is
    exact; the median (the upper middle one for an even count) is the middle of its bin of a
    0.2%-wide histogram, kept within the range, so within 0.1% of the exact one."""
    bins: Counter = Counter()
    count, low, high = 0, math.inf, -math.inf
    for times in arrays:
        if times:
            count += len(times)
            low, high = min(low, min(times)), max(high, max(times))
            bins.update(map(_time_bin, times))
    if not count:
        return None, None
    seen = 0
    for index in sorted(bins):
        seen += bins[index]
        if seen > count // 2:
            return min(high, max(low, math.exp((index + 0.5) * BIN))), high
    return high, high


def _time_bin(seconds: float) -> int:
    return math.floor(math.log(max(seconds, 1e-9)) / BIN)


def rows(specs: Sequence[str]) -> list[BotRow]:
    """One row per distinct spec, in order of first appearance."""
    found: dict[str, BotRow] = {}
    for index, spec in enumerate(specs):
        found.setdefault(spec, BotRow(spec)).seats.append(index)
    return list(found.values())


def report(config: ArenaConfig, results: Sequence[DealResult], ran_on: dict | None = None) -> dict:
    """The arena's figures as one JSON-ready object (what `duckcover arena --json` prints);
    `ran_on` says where it ran ({"where": "local", "jobs": 2}, or a cluster's description)."""
    players = len(config.specs)
    standings = rate(config, results)
    figures = {
        "deals": config.deals,
        "seatings": players,
        "games": config.deals * players,
        "seed": config.seed,
        "rules": config.rules().to_json(),
        "budget": config.budget,
        "time_limit": config.time_limit,
        "hard_limit": config.hard_limit,
        "trusted": config.trusted,
        "bots": [_with_rating(row.to_json(results, players), standings[row.bot]) for row in rows(config.specs)],
        "protections": protections_report(config),
    }
    if ran_on is not None:
        figures["ran_on"] = ran_on
    return figures


def protections_report(config: ArenaConfig) -> dict:
    """How the result was obtained: which bots ran in a process of their own and which of the
    kernel's walls stood around them (duckcover.players.confine); the others ran in the arena's process."""
    from .confine import available

    confined = list(dict.fromkeys(spec for spec in config.specs if not config.in_process(spec)))
    report = {"confined_bots": confined, **available().to_json()}
    if not confined:
        why = "--trusted" if config.trusted else "all built in"
        report["summary"] = f"every bot ran in the arena's own process ({why}): no bot was confined"
        report["warnings"] = ["trusted bots can read the deal and your files"] if config.trusted else []
    return report


def rate(config: ArenaConfig, results: Sequence[DealResult], published: bool = True) -> dict[str, Standing]:
    """Each distinct spec's rating from every game of the arena, in deal and rotation order.
    A measured bot starts from its published rating, as in the statistics, so the arena speaks
    on the scale the set-up screen does; `published=False` rates everybody from scratch (what
    measuring the ladder takes: benchmarks/ratings.py)."""
    keys = tuple(bot_key(*bot_identity(spec)) for spec in config.specs)
    games = []
    for deal in results:
        for totals, shares in zip(deal.totals, deal.win_shares):
            winners = [bot for bot, share in enumerate(shares) if share > 0]
            games.append(RatedGame(len(games), keys, ranks(totals, winners)))
    standings = compute(games, published)
    return {spec: standings.get(key, Standing(key)) for spec, key in zip(config.specs, keys)}


def _with_rating(row: dict, standing: Standing) -> dict:
    row["rating"] = standing.rating.as_dict()
    row["rated_as"] = standing.label
    return row


def _round(value: float) -> float | None:
    return None if value is None or math.isnan(value) else round(value, 4)
