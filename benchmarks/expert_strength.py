"""Expert strength and speed: `expert` against three `greedy` bots, duplicate deals, seat rotation.

Usage: python benchmarks/expert_strength.py [--deals 250] [--budget N] [--workers 2] [--seed 0]

Every deal (a game seed: layouts, decks, captains) is played four times, the expert in seat
0, 1, 2, 3 in turn, the greedy bots in the other seats. Per game the difference is the
expert's 3-round total minus the greedy seats' mean total; per deal it is the mean over the
four seatings (the paired difference). Prints the mean paired difference with its 95%
confidence interval (normal approximation over deals), each side's mean score, and the
expert's decision time (median, p90, max; every `choose` call, trivial ones included).
Target (issue 3): the CI's upper end <= -7; median <= 100 ms, max <= 300 ms.
The last line is `expert_minus_greedy=<mean paired difference>`.

Measured 2026-11-30 on the 2-core box (Python 3.11, other jobs sharing the cores), default
budget (500), `--deals 500`:

    500 deals x 4 seats = 2000 games, budget default, 2 workers, 1150 s
    expert mean total -0.35, greedy seats' mean 11.20
    paired difference (expert - greedy) -11.55, 95% CI [-11.92, -11.19]
    decisions 85178: median 21.9 ms, p90 47.0 ms, max 245.9 ms
    expert_minus_greedy=-11.55

250 deals take about 10 minutes with both cores free.
"""
from __future__ import annotations

import argparse
import statistics
import time
from multiprocessing import Pool

from duckcover.players.harness import play_game
from duckcover_bots.expert import ExpertBot
from duckcover_bots.greedy import GreedyBot

SEATS = 4


class TimedExpert(ExpertBot):
    """The expert, recording how long each decision takes."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.times: list[float] = []

    def choose(self, view):
        start = time.perf_counter()
        move = super().choose(view)
        self.times.append(time.perf_counter() - start)
        return move


def play_deal(task: tuple[int, int | None]) -> tuple[int, list[float], list[float], list[float], list[float]]:
    """One deal, the expert in every seat in turn: (seed, diffs, expert totals, greedy means, times)."""
    seed, budget = task
    diffs, expert_scores, greedy_scores, times = [], [], [], []
    for seat in range(SEATS):
        expert = TimedExpert(budget=budget)
        bots = [GreedyBot() for _ in range(SEATS)]
        bots[seat] = expert
        totals = play_game(bots, seed=seed).totals
        others = (sum(totals) - totals[seat]) / (SEATS - 1)
        diffs.append(totals[seat] - others)
        expert_scores.append(totals[seat])
        greedy_scores.append(others)
        times.extend(expert.times)
    return seed, diffs, expert_scores, greedy_scores, times


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=250, help="deals; each is played 4 times (default 250)")
    parser.add_argument("--budget", type=int, default=None, help="rollouts per decision (default: the bot's)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0, help="first deal seed")
    args = parser.parse_args()
    tasks = [(seed, args.budget) for seed in range(args.seed, args.seed + args.deals)]
    start = time.perf_counter()
    paired, expert_scores, greedy_scores, times = [], [], [], []
    with Pool(args.workers) as pool:
        for _, diffs, mine, theirs, spent in pool.imap_unordered(play_deal, tasks):
            paired.append(statistics.mean(diffs))
            expert_scores.extend(mine)
            greedy_scores.extend(theirs)
            times.extend(spent)
    mean = statistics.mean(paired)
    half = 1.96 * statistics.stdev(paired) / len(paired) ** 0.5 if len(paired) > 1 else float("nan")
    times.sort()
    print(f"{len(paired)} deals x {SEATS} seats = {len(expert_scores)} games, budget {args.budget or 'default'},"
          f" {args.workers} workers, {time.perf_counter() - start:.0f} s")
    print(f"expert mean total {statistics.mean(expert_scores):.2f}, greedy seats' mean {statistics.mean(greedy_scores):.2f}")
    print(f"paired difference (expert - greedy) {mean:.2f}, 95% CI [{mean - half:.2f}, {mean + half:.2f}]")
    print(f"decisions {len(times)}: median {percentile(times, 0.5) * 1000:.1f} ms,"
          f" p90 {percentile(times, 0.9) * 1000:.1f} ms, max {times[-1] * 1000:.1f} ms")
    print(f"expert_minus_greedy={mean:.2f}")


if __name__ == "__main__":
    main()
