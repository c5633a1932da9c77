"""Decision time per built-in bot, and the cost of running a bot in a process of its own.

    python benchmarks/bots.py [--decisions N] [--deals N]

Each bot plays seat 0 of 4-player games (seeds 0, 1, 2, ...) against greedy until it has made
N decisions; only its own `choose` calls are timed (the Referee's per-decision clock, run
inline). Prints `expert_p50_ms=<n>` (`nan` when the expert is not installed).

Then the process boundary: greedy at seat 0 named by its module path (so it is not "built in"
and plays in a process of its own, protocol duckcover-bot/1) against the same greedy in the
game's process: per decision, the time the Referee waits for the answer, and the whole
`Referee.decide` call (view to plain data, pipe both ways, answer checked). And the arena's
throughput (games/s) with that bot in and out of process, and how long a bot process takes
to start (spawn to hello: the interpreter, the kernel's walls of duckcover.players.confine, the bot's
import), which is what a restart after an overrun waits for. Then the same greedy in its own
process beside the expert (in the game's process, seat 1): the time the Referee charges it
must stay its own round trip, not grow by the expert's thinking. The last line is
`greedy_process_p50_ms=<n>`: the median wait for a greedy answer from its own process.
"""
from __future__ import annotations

import argparse
import math
import statistics
import time

from duckcover.players.arena import ArenaConfig
from duckcover.players.arena import run as run_arena
from duckcover.players.harness import play_game
from duckcover.players.plugins import BotLoadError, resolve_bot
from duckcover.players.safety import Referee
from duckcover.players.sandbox import seat_bot

BOTS = ("random", "greedy", "expert")
OUT_OF_PROCESS = "duckcover_bots.greedy:GreedyBot"  # a module path: never run in the game's process


def decision_times(spec: str, decisions: int) -> list[float]:
    times: list[float] = []
    seed = 0
    while len(times) < decisions:
        bots = [resolve_bot(spec, seed=seed)] + [resolve_bot("greedy", seed=seed) for _ in range(3)]
        referee = Referee(bots, hard_limit=None)
        play_game(bots, seed=seed, referee=referee)
        times.extend(referee.times[0])
        seed += 1
    return times[:decisions]


def boundary(decisions: int, out_of_process: bool, beside: str = "greedy") -> tuple[list[float], list[float]]:
    """(answer waits, whole decide calls) in seconds, per decision of seat 0; `beside` at seat 1."""
    waits: list[float] = []
    calls: list[float] = []
    first = seat_bot(OUT_OF_PROCESS) if out_of_process else resolve_bot("greedy")
    seed = 0
    try:
        while len(waits) < decisions:
            bots = [first, resolve_bot(beside, seed=seed)] + [resolve_bot("greedy") for _ in range(2)]
            referee = Referee(bots, hard_limit=10.0, keep_processes=True)
            decide = referee.decide

            def timed(game, seats=None):
                asked = 0 in game.awaiting
                start = time.perf_counter()
                moves = decide(game, seats)
                if asked:
                    calls.append(time.perf_counter() - start)
                return moves

            referee.decide = timed
            play_game(bots, seed=seed, referee=referee)
            waits.extend(referee.times[0])
            seed += 1
    finally:
        if out_of_process:
            first.close()
    return waits[:decisions], calls[:decisions]


def startup_times(count: int) -> list[float]:
    """Seconds from spawning a bot process to reading its hello, `count` times."""
    from duckcover.players.sandbox import BotProcess

    times = []
    for _ in range(count):
        start = time.perf_counter()
        process = BotProcess(OUT_OF_PROCESS)
        process.answer()
        times.append(time.perf_counter() - start)
        process.close()
    return times


def arena_rate(deals: int, trusted: bool) -> float:
    config = ArenaConfig((OUT_OF_PROCESS, "greedy", "greedy", "greedy"), deals=deals, seed=1, trusted=trusted)
    start = time.perf_counter()
    run_arena(config)
    return deals * len(config.specs) / (time.perf_counter() - start)


def percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=300)
    parser.add_argument("--deals", type=int, default=30, help="arena deals for the throughput figures")
    parser.add_argument("--starts", type=int, default=10, help="bot processes started for the start-up figure")
    args = parser.parse_args()
    expert_p50 = math.nan
    print(f"{'bot':8} {'decisions':>9} {'p50 ms':>9} {'p90 ms':>9} {'p99 ms':>9} {'max ms':>9}  wall s")
    for spec in BOTS:
        try:
            resolve_bot(spec)
        except BotLoadError as err:
            print(f"{spec:8} not available: {err}")
            continue
        start = time.perf_counter()
        ordered = sorted(t * 1000 for t in decision_times(spec, args.decisions))
        p50 = statistics.median(ordered)
        print(
            f"{spec:8} {len(ordered):9d} {p50:9.3f} {percentile(ordered, 0.9):9.3f} "
            f"{percentile(ordered, 0.99):9.3f} {ordered[-1]:9.3f}  {time.perf_counter() - start:.1f}"
        )
        if spec == "expert":
            expert_p50 = p50
    if math.isnan(expert_p50):
        print("the expert bot is not installed: its p50 is nan")
    print(f"expert_p50_ms={expert_p50:.3f}" if not math.isnan(expert_p50) else "expert_p50_ms=nan")
    print()
    print(f"greedy at seat 0, {args.decisions} decisions: in the game's process, then in its own")
    print(f"{'where':12} {'wait p50':>9} {'wait p90':>9} {'decide p50':>11} {'decide p90':>11}  (ms)")
    medians = {}
    for where, out in (("in-process", False), ("own process", True)):
        waits, calls = (sorted(x) for x in boundary(args.decisions, out))
        medians[where] = statistics.median(waits) * 1000
        print(f"{where:12} {medians[where]:9.3f} {percentile(waits, 0.9) * 1000:9.3f} "
              f"{statistics.median(calls) * 1000:11.3f} {percentile(calls, 0.9) * 1000:11.3f}")
    print(f"process boundary per decision (median wait, own minus in-process): "
          f"{medians['own process'] - medians['in-process']:.3f} ms")
    beside_expert = sorted(boundary(max(1, args.decisions // 3), True, beside="expert")[0])
    print(f"own process, the expert at seat 1: charged p50 {statistics.median(beside_expert) * 1000:.3f} ms, "
          f"p90 {percentile(beside_expert, 0.9) * 1000:.3f} ms, max {beside_expert[-1] * 1000:.3f} ms "
          f"({len(beside_expert)} decisions)")
    rates = {trusted: arena_rate(args.deals, trusted) for trusted in (True, False)}
    print(f"arena, {args.deals} deals x 4 seatings, greedy x4 with seat 0 named by module path: "
          f"{rates[True]:.1f} games/s in-process (--trusted), {rates[False]:.1f} games/s with it in its own process")
    try:
        from duckcover.players.confine import available

        print(f"bot processes here: {available().summary()}")
    except ImportError:  # a tree from before duckcover.players.confine (the 'before' figures)
        print("bot processes here: no kernel confinement (before duckcover.players.confine)")
    starts = sorted(startup_times(args.starts))
    print(f"bot process start (spawn to hello), {args.starts} starts: p50 {statistics.median(starts) * 1000:.1f} ms, "
          f"max {starts[-1] * 1000:.1f} ms")
    print(f"greedy_process_p50_ms={medians['own process']:.3f}")


if __name__ == "__main__":
    main()
