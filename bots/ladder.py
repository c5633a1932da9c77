"""The ladder's in-between levels: the built-in bots, mixed or held back, so that every step of
the difficulty ladder (duckcover.players.difficulty.LADDER) is about the same rating step.

- A mixed bot plays the greedy move with a fixed chance, otherwise a uniformly random legal
  move: from `random` (chance 0) to `greedy` (chance 1).
- A held-back expert searches with a small budget (samples per move).

Both draw only from `self.rng`, which the harness reseeds before every decision, so a seed
replays the same game anywhere.
"""
from duckcover.players.bot import Bot

from .expert import ExpertBot
from .greedy import GreedyBot


class MixedBot(Bot):
    """Greedy with chance `greedy_chance`, else random. Subclasses fix the chance (a version)."""

    name = "mixed"
    description = "Plays greedy's move with some chance, otherwise a random legal move."
    version = "1"
    greedy_chance = 0.5

    def __init__(self, seed: int = 0, budget: int | None = None) -> None:
        super().__init__(seed, budget)
        self._greedy = GreedyBot(seed, budget)

    def choose(self, view):
        moves = view.legal_moves()
        if not moves:
            return None
        if self.rng.random() < self.greedy_chance:
            self._greedy.rng = self.rng  # one stream: the harness's reseed covers both
            return self._greedy.choose(view)
        return self.rng.choice(moves)


class NoviceBot(MixedBot):
    name = "novice"
    description = "The ladder's first step: greedy's move one time in four, otherwise a random one."
    greedy_chance = 0.25


class CasualBot(MixedBot):
    name = "casual"
    description = "The ladder's second step: greedy's move three times in five, otherwise a random one."
    greedy_chance = 0.6
