"""Decision time per built-in bot: percentiles over a few hundred decisions from seeded games.

    python benchmarks/bots.py [--decisions N]

Each bot plays seat 0 of 4-player games (seeds 0, 1, 2, ...) against greedy until it has made
N decisions; only its own `choose` calls are timed (the Referee's per-decision clock, run
inline). The last line is `expert_p50_ms=<n>` (`nan` when the expert is not installed).
"""
from __future__ import annotations

import argparse
import math
import statistics
import time

from duckcover.harness import play_game
from duckcover.plugins import BotLoadError, resolve_bot
from duckcover.safety import Referee

BOTS = ("random", "greedy", "expert")


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


def percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=300)
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


if __name__ == "__main__":
    main()
