"""Difficulty names the app offers, and the bot each one stands for; the difficulty ladder.

They are plain aliases of bot specs, so anything that takes a bot spec takes a difficulty.
Every place that lists difficulties (the set-up screen, `duckcover play`, the server and its
lobby client, `duckcover bots`) reads them from here. `easy`, `medium` and `hard` are names
records keep: they stay, and stand for the same bots.

The ladder (LADDER) climbs in even rating steps, from `novice` to `hard`: its two lower steps
mix greedy's moves with random ones (bots/ladder.py), chosen so that each step is about the
rating step from `medium` (greedy) to `hard` (expert), the largest one nobody can shrink
without a new bot. `easy` (random) stays below the ladder. LADDER_RATINGS are the levels'
ratings (mu, sigma) from one arena run of the four levels; see benchmarks/ratings.py.
"""
from __future__ import annotations

DIFFICULTIES: dict[str, str] = {
    "easy": "random",
    "novice": "novice",
    "casual": "casual",
    "medium": "greedy",
    "hard": "expert",
}

LADDER: tuple[str, ...] = ("novice", "casual", "medium", "hard")

# Measured: the four levels in one arena, 8 duplicate deals x 4 seatings = 32 games
# (seed 2026), rated as the statistics rate games (duckcover.ratings); see README "Ratings".
LADDER_RATINGS: dict[str, tuple[float, float]] = {
    "novice": (-5.21, 4.36),
    "casual": (15.96, 3.66),
    "medium": (34.04, 3.66),
    "hard": (55.21, 4.36),
}


def level_rating(level: str) -> tuple[float, float] | None:
    """A difficulty's measured rating (mu, sigma), or None (`easy` is off the ladder)."""
    return LADDER_RATINGS.get(level)


def nearest_level(mu: float | None) -> str:
    """The ladder level whose rating is closest to `mu` (a player without one: `medium`)."""
    if mu is None:
        return "medium"
    return min(LADDER, key=lambda level: (abs(LADDER_RATINGS[level][0] - mu), LADDER.index(level)))
