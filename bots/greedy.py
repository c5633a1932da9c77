"""greedy: the baseline. Cover the adjacent stack with the most splashes; otherwise duck at random."""
from duckcover.bot import Bot
from duckcover.grid import duck_targets
from duckcover.moves import Move, Phase


class GreedyBot(Bot):
    name = "greedy"
    description = "Covers the adjacent stack worth most; otherwise ducks to a random legal cell."

    def choose(self, view):
        candidates = view.candidates
        if not candidates:
            return None
        values = view.rules.values
        if view.phase is Phase.GIFT:  # hand the left neighbour the costliest of the allowed ducks
            return Move(max(candidates, key=lambda c: values[c[0].number])[0], None)
        if view.phase is Phase.MOVE:
            cells = view.grids[view.seat].cells
            best, best_value = None, -1
            for card, (x, y) in candidates:
                # The four orthogonal neighbours, in duckcover.grid.neighbours' order.
                for to in ((x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1)):
                    stack = cells.get(to)
                    if stack is not None and values[stack[-1].number] > best_value:
                        best, best_value = Move(card, to), values[stack[-1].number]
            if best:
                return best
            if len(candidates) == 1:
                card, origin = candidates[0]
                return Move(card, self.rng.choice(duck_targets(cells, origin)))
        return self.rng.choice(view.legal_moves())
