"""Difficulty names the app offers, and the bot each one stands for; the difficulty ladder.

They are plain aliases of bot specs, so anything that takes a bot spec takes a difficulty.
Every place that lists difficulties (the set-up screen, `duckcover play`, the server and its
lobby client, `duckcover bots`) reads them from here. `easy`, `medium` and `hard` are names
records keep: they stay, and stand for the same bots.

The ladder (LADDER) climbs in even rating steps, from `novice` to `hard`: its two lower steps
mix greedy's moves with random ones (bots/ladder.py), chosen so that each step is about the
rating step from `medium` (greedy) to `hard` (expert), the largest one nobody can shrink
without a new bot. `easy` (random) stays below the ladder, placed on the same scale.
LEVEL_RATINGS are the levels' published ratings (mu, sigma) from the arena
(duckcover/common/measured.py; steps of 22.9, 22.8 and 19.9): where each level's bot starts
before the player's own games move it (saves/ratings.py).
"""
from __future__ import annotations

from ..common.measured import LEVELS

# The names bots sit under at a table (the app's set-up and pass-and-play, the server).
BOT_NAMES = ("Jackson", "Gwen", "Dan", "Connie", "Ada", "Boris", "Mia", "Theo")

# Every level and its bot, from the one table of levels (common/measured.py).
DIFFICULTIES: dict[str, str] = {name: level.bot for name, level in LEVELS.items()}

LADDER: tuple[str, ...] = tuple(name for name, level in LEVELS.items() if level.on_ladder)

# Published: every level, `easy` included (common/measured.py has the figures and how they were
# measured). LADDER_RATINGS: the ladder's levels only, the ones "near my rating" picks from.
LEVEL_RATINGS: dict[str, tuple[float, float]] = {name: (level.mu, level.sigma) for name, level in LEVELS.items()}
LADDER_RATINGS: dict[str, tuple[float, float]] = {level: LEVEL_RATINGS[level] for level in LADDER}


def level_of(bot: str) -> str | None:
    """The difficulty a bot stands behind (`greedy` -> `medium`), or None."""
    return next((level for level, name in DIFFICULTIES.items() if name == bot), None)


def nearest_level(mu: float | None, level_mus: dict[str, float] | None = None) -> str:
    """The ladder level whose rating is closest to `mu` (a player without one: `medium`).
    `level_mus`: the levels' ratings as the statistics know them now (the published ones
    moved by the player's games), so the choice agrees with the numbers shown; by default
    the published ones."""
    if mu is None:
        return "medium"
    mus = {level: (level_mus or {}).get(level, LADDER_RATINGS[level][0]) for level in LADDER}
    return min(LADDER, key=lambda level: (abs(mus[level] - mu), LADDER.index(level)))
