"""Difficulty names the app offers, and the bot each one stands for; the difficulty ladder.

They are plain aliases of bot specs, so anything that takes a bot spec takes a difficulty.
Every place that lists difficulties (the set-up screen, `duckcover play`, the server and its
lobby client, `duckcover bots`) reads them from here. `easy`, `medium` and `hard` are names
records keep: they stay, and stand for the same bots.

The ladder (LADDER) climbs in even rating steps, from `novice` to `hard`: its two lower steps
mix greedy's moves with random ones (bots/ladder.py), chosen so that each step is about the
rating step from `medium` (greedy) to `hard` (expert), the largest one nobody can shrink
without a new bot. `easy` (random) stays below the ladder. LADDER_RATINGS are the levels'
ratings (mu, sigma) from one arena run of the four levels (steps of 22.9, 22.8 and 19.9).
"""
from __future__ import annotations

# The names bots sit under at a table (the app's set-up and pass-and-play, the server).
BOT_NAMES = ("Jackson", "Gwen", "Dan", "Connie", "Ada", "Boris", "Mia", "Theo")

DIFFICULTIES: dict[str, str] = {
    "easy": "random",
    "novice": "novice",
    "casual": "casual",
    "medium": "greedy",
    "hard": "expert",
}

LADDER: tuple[str, ...] = ("novice", "casual", "medium", "hard")

# Measured: the four levels in one arena, 37 duplicate deals x 4 seatings = 148 games
# (`python benchmarks/ratings.py --ladder 37 --seed 2026`), rated as the statistics rate games
# (duckcover.saves.ratings); docs/ratings.md has the figures. Re-measure when a level's bot changes.
LADDER_RATINGS: dict[str, tuple[float, float]] = {
    "novice": (-8.73, 3.33),
    "casual": (14.21, 2.58),
    "medium": (36.96, 2.52),
    "hard": (56.87, 3.14),
}


def level_rating(level: str) -> tuple[float, float] | None:
    """A difficulty's measured rating (mu, sigma), or None (`easy` is off the ladder)."""
    return LADDER_RATINGS.get(level)


def nearest_level(mu: float | None) -> str:
    """The ladder level whose rating is closest to `mu` (a player without one: `medium`)."""
    if mu is None:
        return "medium"
    return min(LADDER, key=lambda level: (abs(LADDER_RATINGS[level][0] - mu), LADDER.index(level)))
