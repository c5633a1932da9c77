"""greedy: the baseline. Cover the adjacent stack with the most splashes; otherwise duck at random."""
from duckcover.bot import Bot
from duckcover.game import Phase
from duckcover.grid import cover_targets
from duckcover.moves import Move


class GreedyBot(Bot):
    name = "greedy"
    description = "Covers the adjacent stack worth most; otherwise ducks to a random legal cell."

    def choose(self, view):
        if not view.candidates:
            return None
        if view.phase is Phase.GIFT:  # hand the left neighbour the costliest of the allowed ducks
            return Move(max(view.candidates, key=lambda c: view.rules.value(c[0].number))[0], None)
        cells = view.grid.cells
        value = view.rules.value
        best, best_value = None, -1
        if view.phase is Phase.MOVE:
            for card, origin in view.candidates:
                for to in cover_targets(cells, origin):
                    worth = value(cells[to][-1].number)
                    if worth > best_value:
                        best, best_value = Move(card, to), worth
        return best or self.rng.choice(view.legal_moves())
