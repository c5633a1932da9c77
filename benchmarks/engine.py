"""Engine speed: 4 players, 3 rounds, baseline greedy bots, many seeded games.

Usage: python benchmarks/engine.py [--games N] [--repeat R] [--jobs J]
Prints games per second in one process (best of R runs); with --jobs J it also runs J
processes side by side and reports their combined throughput. The last line is
`games_per_s=<number>`, the one-process figure. Target: >= 1,000.
"""
from __future__ import annotations

import argparse
import time

from duckcover.engine.game import FLIP, ROUND_OVER, Game
from duckcover_bots.greedy import GreedyBot


def play(bots: list[GreedyBot], seed: int) -> Game:
    """harness.play_game without the safety net or per-decision reseeding: this measures the
    engine (views, legality, moves, scoring) and the bots, not the harness around them."""
    game = Game(4, seed=seed)
    while not game.over:
        if game.phase is ROUND_OVER:
            game.start_round()
        while game.phase is FLIP:
            game.flip()
            choosing = game.awaiting
            while choosing:
                views = list(map(game.view, choosing))  # all built before any move applies
                moves = [None] * 4
                for seat, view in zip(choosing, views):
                    moves[seat] = bots[seat].choose(view)
                game.play(moves)
                choosing = game.awaiting  # low blows: the gifts' receivers place them
    return game


def run(games: int, seed: int = 0) -> tuple[int, float, int]:
    # Seeded once per run (seeding costs 4 us, more than a turn): every run plays the same games.
    bots = [GreedyBot(seed=seed * 8 + seat) for seat in range(4)]
    flips = 0
    start = time.perf_counter()
    for game_seed in range(seed, seed + games):
        game = play(bots, game_seed)
        flips += sum(len(log.turns) for log in game.rounds)
    return games, time.perf_counter() - start, flips


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    parser.add_argument("--jobs", type=int, default=1, help="also measure this many processes at once")
    args = parser.parse_args()
    run(100, seed=10**6)  # warm up caches and imports
    best = None
    for attempt in range(args.repeat):
        games, seconds, flips = run(args.games)
        rate = games / seconds
        print(f"run {attempt + 1}: {games} games in {seconds:.2f} s = {rate:.0f} games/s ({flips / games:.1f} flips/game)")
        best = rate if best is None else max(best, rate)
    if args.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.jobs) as pool:
            list(pool.map(run, [10] * args.jobs, [10**6] * args.jobs))  # start the workers
            start = time.perf_counter()
            results = list(pool.map(run, [args.games] * args.jobs, [i * args.games for i in range(args.jobs)]))
            seconds = time.perf_counter() - start
        total = sum(games for games, _, _ in results)
        print(f"{args.jobs} processes: {total} games in {seconds:.2f} s = {total / seconds:.0f} games/s")
    print(f"games_per_s={best:.0f}")


if __name__ == "__main__":
    main()
