"""greedy: the baseline. Cover the adjacent stack with the most splashes; otherwise duck at random."""
from duckcover.bot import Bot
from duckcover.grid import duck_targets, neighbours
from duckcover.moves import Move, Phase

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
            best_card = best_to = None
            best_value = -1
            for card, origin in candidates:
                for to in neighbours(origin):  # the first of equals wins: up, left, right, down
                    stack = cells.get(to)
                    if stack is not None:
                        value = values[stack[-1].number]
                        if value > best_value:
                            best_card, best_to, best_value = card, to, value
            if best_to is not None:
                return Move(best_card, best_to)
            if len(candidates) == 1:
                card, origin = candidates[0]
                return Move(card, self.rng.choice(duck_targets(cells, origin)))
        elif phase is GIFT:  # hand the left neighbour the costliest of the allowed ducks
            return Move(max(candidates, key=lambda c: values[c[0].number])[0], None)
        return self.rng.choice(view.legal_moves())
