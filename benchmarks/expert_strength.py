"""Expert strength and speed: `expert` against three `greedy` bots, duplicate deals, seat rotation.

Usage: python benchmarks/expert_strength.py [--deals 250] [--budget N] [--workers 2] [--seed 0]
                                            [--bot expert] [--field greedy]

`--bot master --field expert` measures the master against three experts the same way (issue
32), and times the field's decisions in the same run too (the field's median is printed when it
searches), so the two medians share the machine's load. Its figures are in docs/ratings.md.

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
import sys
import time
from multiprocessing import Pool

from duckcover.players.harness import play_game
from duckcover_bots.expert import ExpertBot
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.master import MasterBot

SEATS = 4
BOTS = {"greedy": GreedyBot, "expert": ExpertBot, "master": MasterBot}


def timed(bot, times: list[float]):
    """`bot`, recording how long each of its decisions takes into `times`."""
    choose = bot.choose

    def timed_choose(view):
        start = time.perf_counter()
        move = choose(view)
        times.append(time.perf_counter() - start)
        return move

    bot.choose = timed_choose
    return bot


def play_deal(task: tuple[int, int | None, str, str]) -> tuple[int, list[float], list[float], list[float], list[float], list[float]]:
    """One deal, the bot in every seat in turn: (seed, diffs, bot totals, field means, bot times,
    field times)."""
    seed, budget, name, field = task
    diffs, bot_scores, field_scores, times, field_times = [], [], [], [], []
    for seat in range(SEATS):
        bots = [timed(BOTS[field](budget=budget), field_times) for _ in range(SEATS)]
        bots[seat] = timed(BOTS[name](budget=budget), times)
        totals = play_game(bots, seed=seed).totals
        others = (sum(totals) - totals[seat]) / (SEATS - 1)
        diffs.append(totals[seat] - others)
        bot_scores.append(totals[seat])
        field_scores.append(others)
    return seed, diffs, bot_scores, field_scores, times, field_times


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=250, help="deals; each is played 4 times (default 250)")
    parser.add_argument("--budget", type=int, default=None, help="rollouts per decision (default: the bot's)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0, help="first deal seed")
    parser.add_argument("--bot", choices=sorted(BOTS), default="expert", help="the bot measured (default expert)")
    parser.add_argument("--field", choices=sorted(BOTS), default="greedy", help="the three others (default greedy)")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="stop after this long and report the deals finished by then (their count is printed)")
    args = parser.parse_args()
    name, field = args.bot, args.field
    tasks = [(seed, args.budget, name, field) for seed in range(args.seed, args.seed + args.deals)]
    start = time.perf_counter()
    paired, bot_scores, field_scores, times, field_times = [], [], [], [], []
    with Pool(args.workers) as pool:
        for _, diffs, mine, theirs, spent, spent_by_field in pool.imap(play_deal, tasks):
            paired.append(statistics.mean(diffs))
            bot_scores.extend(mine)
            field_scores.extend(theirs)
            times.extend(spent)
            field_times.extend(spent_by_field)
            if len(paired) % 10 == 0:  # a running figure on standard error
                print(f"{len(paired)} deals: {statistics.mean(paired):+.2f}", file=sys.stderr, flush=True)
            if args.max_seconds is not None and time.perf_counter() - start > args.max_seconds:
                pool.terminate()  # the first deals in order, as many as finished in time
                break
    mean = statistics.mean(paired)
    half = 1.96 * statistics.stdev(paired) / len(paired) ** 0.5 if len(paired) > 1 else float("nan")
    print(f"{len(paired)} deals x {SEATS} seats = {len(bot_scores)} games, budget {args.budget or 'default'},"
          f" {args.workers} workers, {time.perf_counter() - start:.0f} s")
    print(f"{name} mean total {statistics.mean(bot_scores):.2f}, {field} seats' mean {statistics.mean(field_scores):.2f}")
    print(f"paired difference ({name} - {field}) {mean:.2f}, 95% CI [{mean - half:.2f}, {mean + half:.2f}]")
    for who, spent in ((name, times), (field, field_times) if field != "greedy" else (None, [])):
        if who:
            spent.sort()
            print(f"{who} decisions {len(spent)}: median {percentile(spent, 0.5) * 1000:.1f} ms,"
                  f" p90 {percentile(spent, 0.9) * 1000:.1f} ms, max {spent[-1] * 1000:.1f} ms,"
                  f" mean {statistics.mean(spent) * 1000:.1f} ms")
    print(f"{name}_minus_{field}={mean:.2f}")


if __name__ == "__main__":
    main()
