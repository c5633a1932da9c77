"""Engine speed: 4 players, 3 rounds, baseline greedy bots, many seeded games.

Usage: python benchmarks/engine.py [--games N] [--seconds S]
Prints games per second; the last line is `games_per_s=<number>`. Target: >= 1,000.
"""
from __future__ import annotations

import argparse
import time

from duckcover.game import Game
from duckcover.moves import Phase
from duckcover_bots.greedy import GreedyBot


def play(bots: list[GreedyBot], seed: int) -> Game:
    """harness.play_game without the safety net or per-decision reseeding: this measures the
    engine (views, legality, moves, scoring) and the bots, not the harness around them."""
    for seat, bot in enumerate(bots):
        bot.rng.seed(seed * 8 + seat)  # seeded games, bot by bot
    game = Game(4, seed=seed)
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_round()
        while game.phase is Phase.FLIP:
            game.flip()
            while game.awaiting:
                choosing = game.awaiting
                views = [game.view(seat) for seat in choosing]  # all built before any move applies
                moves = [None] * 4
                for seat, view in zip(choosing, views):
                    moves[seat] = bots[seat].choose(view)
                game.play(moves)
    return game


def run(games: int, seed: int = 0) -> tuple[int, float, int]:
    bots = [GreedyBot() for _ in range(4)]
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
    args = parser.parse_args()
    run(100, seed=10**6)  # warm up caches and imports
    best = None
    for attempt in range(args.repeat):
        games, seconds, flips = run(args.games)
        rate = games / seconds
        print(f"run {attempt + 1}: {games} games in {seconds:.2f} s = {rate:.0f} games/s ({flips / games:.1f} flips/game)")
        best = rate if best is None else max(best, rate)
    print(f"games_per_s={best:.0f}")


if __name__ == "__main__":
    main()
