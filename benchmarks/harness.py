"""The inline hosts' cost per game: `play_game` with 4 greedy bots, trusted and refereed.

    python benchmarks/harness.py [--games N] [--repeats R]

What the simulations pay per game on the one sequencer (players.sequence) run inline: the
trusted path (no referee: rollouts of callers, the ratings, scripts) and the refereed path the
arena takes (a Referee with the arena's limit, the built-in bots called inline). Each figure
is the median over R blocks of N games (seeds 0..N-1) of this process's CPU time
(`time.process_time`), which a shared machine disturbs much less than wall time; bots are
built outside the clock. The last line is `trusted_games_per_cpu_s=<n>`.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

from duckcover.players.harness import play_game
from duckcover.players.plugins import resolve_bot
from duckcover.players.safety import DEFAULT_HARD_LIMIT, Referee

SEATS = 4


def block(games: int, refereed: bool) -> float:
    """CPU seconds for `games` games of greedy x4 (construction of the bots not counted)."""
    spent = 0.0
    for seed in range(games):
        bots = [resolve_bot("greedy", seed=seed) for _ in range(SEATS)]
        referee = Referee(bots, hard_limit=DEFAULT_HARD_LIMIT, inline=[True] * SEATS) if refereed else None
        start = time.process_time()
        play_game(bots, seed=seed, referee=referee)
        spent += time.process_time() - start
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if args.games < 1 or args.repeats < 1:
        parser.error("--games and --repeats must be at least 1")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    block(10, False)  # warm-up: imports, caches
    trusted = statistics.median(block(args.games, False) for _ in range(args.repeats))
    refereed = statistics.median(block(args.games, True) for _ in range(args.repeats))
    print(f"trusted   {trusted * 1000 / args.games:7.3f} CPU ms/game")
    print(f"refereed  {refereed * 1000 / args.games:7.3f} CPU ms/game")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"trusted_games_per_cpu_s={args.games / trusted:.1f}")


if __name__ == "__main__":
    main()
