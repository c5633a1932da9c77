"""The difficulty levels, and their bots' published ratings: what each level measured in the
arena (docs/ratings.md, "The difficulty ladder"), on one scale with every rating the statistics
keep.

Two rooms read them and neither may import the other (players, saves), so they live here:
- players/difficulty.py: the ladder's levels and which one is near a player's rating;
- saves/ratings.py: where a level's bot starts before your own games move it (its prior), so
  the number the set-up screen offers and the one the Statistics show are one number.

A bot is measured at one version; another version of it is another bot, unmeasured, and starts
afresh like any newcomer. Re-measure (`python benchmarks/ratings.py --ladder 37 --seed 2026`,
and `--place random --ladder 37 --seed 2026` for `random`) when a measured bot changes.
"""
from __future__ import annotations

from typing import NamedTuple


class Level(NamedTuple):
    """A difficulty level: the bot it stands for, and that bot's published rating."""

    bot: str
    version: str  # the bot's version measured
    mu: float
    sigma: float
    on_ladder: bool = True  # "near my rating" picks among the ladder's levels


# The levels, in the order the set-up screen offers them, and the one place a level is added:
# its line here and its two words in each locale (docs/changing.md, "A built-in difficulty
# level"). `random` (the `easy` level) is below the ladder; it was placed on the ladder's scale
# by an arena against the three lower levels' bots.
LEVELS: dict[str, Level] = {
    "easy": Level("random", "1", -35.92, 3.45, on_ladder=False),
    "novice": Level("novice", "1", -8.73, 3.33),
    "casual": Level("casual", "1", 14.21, 2.58),
    "medium": Level("greedy", "1", 36.96, 2.52),
    "hard": Level("expert", "1", 56.87, 3.14),
}

# bot name: (the version measured, mu, sigma)
MEASURED_BOTS: dict[str, tuple[str, float, float]] = {
    level.bot: (level.version, level.mu, level.sigma) for level in LEVELS.values()}
