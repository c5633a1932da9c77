"""The arena on a local Dask cluster against the same arena on this machine.

    python benchmarks/cluster.py [--deals N] [--workers N] [--bot SPEC ...]

Starts a scheduler and N workers (one thread each) on 127.0.0.1 (duckcover.players.cluster.
LoopbackCluster), then times the same arena (seed 1) three ways: `--jobs 1`, `--jobs N`, and
`--cluster` on those workers, each from start to the last result. Prints games/s for each, the
cluster's start-up time, and checks that the three gave the same figures (timings aside).
Needs the cluster extra. The last line is `cluster_games_per_s=<n>`. The figures depend on
what else the machine runs: say how loaded it was beside them.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from duckcover.players import cluster
from duckcover.players.arena import ArenaConfig, report
from duckcover.players.arena import run as run_arena


def comparable(figures: dict) -> str:
    figures = json.loads(json.dumps(figures))
    for row in figures["bots"]:
        row.pop("decision_ms")
    return json.dumps(figures, sort_keys=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--bot", action="append", default=[], metavar="SPEC", help="(greedy x4)")
    args = parser.parse_args()
    config = ArenaConfig(tuple(args.bot or ["greedy"] * 4), deals=args.deals, seed=1)
    games = config.deals * len(config.specs)
    print(f"{games} games ({config.deals} deals x {len(config.specs)} seatings): {', '.join(config.specs)}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    figures = {}
    rates = {}
    for jobs in sorted({1, args.workers}):
        start = time.perf_counter()
        figures[f"--jobs {jobs}"] = report(config, run_arena(config, jobs))
        rates[f"--jobs {jobs}"] = games / (time.perf_counter() - start)
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        local_cluster = cluster.LoopbackCluster(Path(folder), args.workers)
        started = time.perf_counter() - start
        try:
            start = time.perf_counter()
            results, _ = cluster.run(config, local_cluster.address)
            rates["--cluster"] = games / (time.perf_counter() - start)
            figures["--cluster"] = report(config, results)
        finally:
            local_cluster.stop()
    for where, rate in rates.items():
        print(f"{where:10} {rate:8.2f} games/s")
    print(f"cluster start-up (scheduler + {args.workers} workers, until all joined): {started:.1f} s")
    same = len({comparable(f) for f in figures.values()}) == 1
    print(f"same figures every way (timings aside): {'yes' if same else 'NO'}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"cluster_games_per_s={rates['--cluster']:.2f}")


if __name__ == "__main__":
    main()
