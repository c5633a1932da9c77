"""Arena throughput: games/s for 4 greedy and for expert + 3 greedy, with --jobs 1 and 2.

    python benchmarks/arena.py [--greedy-deals N] [--expert-deals N] [--jobs 1,2]

Each line is one arena run (seed 1) timed from start to the last result, worker start-up
included: games/s, the CPU time per game (this process, its --jobs workers and the bot
processes: user + system), and the first bot's decision median and max (ms). Then the speed-up
from the first to the last --jobs with cheap bots. The last line is `greedy_jobs_speedup=<n>`.
Games/s depend on what else the machine runs (say how loaded it was beside them); CPU time
per game much less so, which makes it the figure to compare on a shared machine.
"""
from __future__ import annotations

import argparse
import os
import resource
import time

from duckcover.players.arena import ArenaConfig, report
from duckcover.players.arena import run as run_arena

FIELDS = {"greedy x4": ("greedy",) * 4, "expert + 3 greedy": ("expert", "greedy", "greedy", "greedy")}


def cpu_seconds() -> float:
    """User + system time of this process and of its children that have ended (the --jobs
    workers end with the run, the bot processes with their chunk)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(specs: tuple[str, ...], deals: int, jobs: int) -> tuple[float, float, dict]:
    """(games/s, CPU ms per game, the first bot's decision_ms)."""
    config = ArenaConfig(specs, deals=deals, seed=1)
    games = deals * len(specs)
    cpu, start = cpu_seconds(), time.perf_counter()
    results = run_arena(config, jobs)
    rate = games / (time.perf_counter() - start)
    return rate, (cpu_seconds() - cpu) * 1000 / games, report(config, results)["bots"][0]["decision_ms"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--greedy-deals", type=int, default=200)
    parser.add_argument("--expert-deals", type=int, default=6)
    parser.add_argument("--jobs", default="1,2", help="comma-separated job counts (1,2)")
    args = parser.parse_args()
    jobs_list = [int(j) for j in args.jobs.split(",")]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    rates: dict[tuple[str, int], float] = {}
    for name, specs in FIELDS.items():
        deals = args.greedy_deals if name.startswith("greedy") else args.expert_deals
        for jobs in jobs_list:
            rate, cpu_ms, first_row_ms = measure(specs, deals, jobs)
            rates[name, jobs] = rate
            print(f"{name:18} --jobs {jobs}  {deals:4d} deals  {rate:8.2f} games/s  {cpu_ms:8.1f} CPU ms/game  "
                  f"{specs[0]} decision ms p50 {first_row_ms['median']:.3f} max {first_row_ms['max']:.1f}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    speedup = rates["greedy x4", jobs_list[-1]] / rates["greedy x4", jobs_list[0]]
    print(f"greedy_jobs_speedup={speedup:.2f}")


if __name__ == "__main__":
    main()
