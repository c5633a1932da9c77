"""greedy: the baseline. Cover the adjacent stack with the most splashes; otherwise duck at random."""
from duckcover.engine import Move, Phase
from duckcover.engine.grid import costliest_cover, duck_targets
from duckcover.players.bot import Bot

MOVE, GIFT = Phase.MOVE, Phase.GIFT  # enum lookups are slow, and simulations call choose() a lot


class GreedyBot(Bot):
    name = "greedy"
    version = "1"  # bump when its decisions change: ratings start it afresh
    description = "Covers the adjacent stack worth most; otherwise ducks to a random legal cell."

    def choose(self, view):
        candidates = view.candidates
        if not candidates:
            return None
        values = view.rules.values
        phase = view.phase
        if phase is MOVE:
            cells = view.grids[view.seat].cells
            cover = costliest_cover(cells, candidates, values)
            if cover is not None:
                return Move(*cover)
            if len(candidates) == 1:
                card, origin = candidates[0]
                return Move(card, self.rng.choice(duck_targets(cells, origin)))
        elif phase is GIFT:  # hand the left neighbour the costliest of the allowed ducks
            return Move(max(candidates, key=lambda c: values[c[0].number])[0], None)
        return self.rng.choice(view.legal_moves())
