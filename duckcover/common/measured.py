"""The built-in bots' published ratings: what the difficulty levels measured in the arena
(docs/ratings.md, "The difficulty ladder"), on one scale with every rating the statistics keep.

Two rooms read them and neither may import the other (players, saves), so they live here:
- players/difficulty.py: the ladder's levels and which one is near a player's rating;
- saves/ratings.py: where a level's bot starts before your own games move it (its prior), so
  the number the set-up screen offers and the one the Statistics show are one number.

A bot is measured at one version; another version of it is another bot, unmeasured, and starts
afresh like any newcomer. Re-measure (`python benchmarks/ratings.py --ladder 37 --seed 2026`,
and `--place random --ladder 37 --seed 2026` for `random`) when a measured bot changes.
"""
from __future__ import annotations

# bot name: (the version measured, mu, sigma). `random` (the `easy` level) is below the ladder;
# it was placed on the ladder's scale by an arena against the three lower levels' bots.
MEASURED_BOTS: dict[str, tuple[str, float, float]] = {
    "random": ("1", -35.92, 3.45),
    "novice": ("1", -8.73, 3.33),
    "casual": ("1", 14.21, 2.58),
    "greedy": ("1", 36.96, 2.52),
    "expert": ("1", 56.87, 3.14),
}
