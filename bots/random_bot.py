"""random: any legal move, uniformly. The floor every other bot must beat."""
from duckcover.players.bot import Bot


class RandomBot(Bot):
    name = "random"
    version = "1"  # bump when its decisions change: ratings start it afresh
    description = "Plays a uniformly random legal move."

    def choose(self, view):
        moves = view.legal_moves()
        return self.rng.choice(moves) if moves else None
