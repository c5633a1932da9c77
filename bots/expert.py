"""expert: a look-ahead player. Monte-Carlo rollouts of the rest of the round, per legal move.

How it decides:
- Each sample is a determinized game (`Game.determinized`): the engine itself, set up from
  this seat's view, with only what the seat cannot see invented (the draw deck's order, dealt
  from the captain cards it has not seen; under Surprises the two removed cards are among
  them). Never the real deck order.
- Every candidate move is played out against the SAME samples (common random numbers): a
  sample fixes the deck, the others' answers to the current call (they choose at the same time
  as we do) and the random ducks' luck; each candidate plays on a `clone()` of it.
- Everybody in a rollout plays greedy (cover the costliest neighbour, else a random duck): the
  baseline's own policy, and fast. Rollouts use the engine's flip/play, so they follow every
  rule and variant the engine does, and end like the round does (a single stack, the Discard
  limit, the turn cap). A rollout scores our round score against the others' mean, so the race
  is in the sums: ending on one stack ourselves, or an opponent ending while our high cards
  are still visible.
- The candidates are every cover and the few best-placed ducks (rollout noise is large next to
  the gaps between moves); successive halving spends the budget on the moves still in
  contention. `budget` is the most rollouts per decision; a cap on simulated moves keeps the
  long rollouts of a round's first turns within the same time.
- Low-blows gifts and placements use quick rules (see `_gift`, `_place`), no search.
"""
from __future__ import annotations

import math
import random
import time

from duckcover.bot import Bot
from duckcover.game import Game, Phase
from duckcover.grid import duck_targets, neighbours
from duckcover.moves import Move
from duckcover.rules import COOPERATIVE

STEPS_PER_ROLLOUT = 24  # the work cap: budget x this many simulated seat moves per decision
NOISE = 4096  # shared random numbers for the rollouts' random ducks (a power of two)
MASK = NOISE - 1
MAX_DUCKS = 4  # ducks kept for the search (see shortlist); None keeps them all
# Rollouts per decision. Measured vs greedy with the former tops-only simulator
# (benchmarks/expert_strength.py, same deals): 300 -> -10.4, 500 -> -11.6, 800 -> -11.8 points
# per game. On the engine the same budget plays at least as well (arena, 60 duplicate deals,
# 2 v 2 against the simulator version: -0.7 points per game, 95% CI [-1.7, +0.3]) but a
# rollout costs about 4x as much (decision p50 ~60 ms of CPU where it was ~15 ms). Unchecked
# plays (`play(trusted=True)`, the moves come from the position's own candidates) and a
# leaner policy took about a fifth off; the same decisions, so the same strength.
DEFAULT_BUDGET = 500

FLIP, MOVE, GIFT, PLACE = Phase.FLIP, Phase.MOVE, Phase.GIFT, Phase.PLACE  # enum lookups are slow
CHOOSING = (MOVE, GIFT, PLACE)
_new_tuple = tuple.__new__  # a Move without its Python-level __new__ (rollouts make thousands)


class Rollouts:
    """Samples of the rest of the round, played on determinized copies of the game."""

    def __init__(self, view, seeds: list[int]):
        self.view = view
        self.seat = view.seat
        self.n = view.players
        self.values = view.rules.values
        self.cooperative = view.rules.has(COOPERATIVE)
        self.seeds = seeds
        self.starts: list = [None] * len(seeds)  # built on first use: the work cap may need fewer
        table = random.Random(seeds[0])
        self.noise = [table.random() for _ in range(NOISE + 8)]
        self.steps = 0  # simulated seat moves so far: the search's deterministic measure of work

    def _start(self, index: int) -> tuple:
        """Sample `index` before our move: a determinized game and the others' answers. Cached."""
        start = self.starts[index]
        if start is None:
            seed = self.seeds[index]
            game = Game.determinized(self.view, random.Random(seed))
            offset = seed & MASK
            answers = self.policy(game, offset)
            answers[self.seat] = None
            start = self.starts[index] = (game, answers, offset)
        return start

    def rollout(self, move: Move, index: int) -> float:
        """Play `move` on the current call, then the rest of the round, in sample `index`."""
        base, answers, offset = self._start(index)
        game = base.clone()
        moves = list(answers)
        moves[self.seat] = move
        game.play(moves, trusted=True)  # built from this position's candidates
        policy = self.policy
        steps = 1
        while game.phase is FLIP:
            game.flip()
            while game.phase in CHOOSING:
                steps += len(game.awaiting)
                game.play(policy(game, offset), trusted=True)
        self.steps += steps
        return self.outcome(game.results[-1].scores)

    def outcome(self, scores) -> float:
        """Lower is better: own round score minus the others' mean (the team total if cooperative)."""
        if self.cooperative:
            return float(sum(scores))
        mine = scores[self.seat]
        return mine - (sum(scores) - mine) / (self.n - 1)

    def policy(self, game: Game, offset: int) -> list[Move | None]:
        """Every seat's greedy answer: cover the neighbour worth most; with no cover, duck beside
        a random other stack (low blows: give the costliest duck allowed, place at random).

        Random choices read `noise` at an index fixed by (turn, seat), so a seat's luck in a
        sample does not depend on what other seats did: sharper common random numbers.
        """
        values, noise = self.values, self.noise
        phase = game.phase
        base = offset + game.turn_number * 8
        candidates_of, grid_of = game.candidates, game.grid
        moves: list[Move | None] = [None] * self.n
        for seat in game.awaiting:
            candidates = candidates_of(seat)
            grid = grid_of(seat)
            k = (base + seat * 2) & MASK
            if phase is MOVE:
                best_card = best_to = None
                best = -1
                stack_at = grid.get
                for card, origin in candidates:
                    for to in neighbours(origin):
                        stack = stack_at(to)
                        if stack is not None:
                            worth = values[stack[-1].number]
                            if worth > best:
                                best_card, best_to, best = card, to, worth
                if best_to is not None:
                    moves[seat] = _new_tuple(Move, (best_card, best_to))
                    continue
                card, origin = candidates[int(noise[k + 2] * len(candidates))]
                cells = list(grid)
                while True:  # a random empty side of a random other stack (one always exists)
                    cx, cy = cell = cells[int(noise[k] * len(cells))]
                    r = int(noise[k + 1] * 4)
                    k = (k + 2) & MASK
                    to = (cx, cy - 1) if r == 0 else (cx - 1, cy) if r == 1 else (cx + 1, cy) if r == 2 else (cx, cy + 1)
                    if cell != origin and to not in grid:
                        moves[seat] = _new_tuple(Move, (card, to))
                        break
            elif phase is GIFT:
                moves[seat] = _new_tuple(Move, (max(candidates, key=lambda c: values[c[0].number])[0], None))
            else:  # PLACE
                targets = duck_targets(grid, None)
                moves[seat] = _new_tuple(Move, (candidates[0][0], targets[int(noise[k] * len(targets))]))
        return moves


def shortlist(view, moves: list[Move]) -> list[Move]:
    """Every cover, and the few ducks that land beside the costliest neighbours.

    Rollout noise is large next to the gaps between moves, so the budget goes further on a
    short list; a duck's main worth is the cover it prepares for the card's next call.
    """
    if MAX_DUCKS is None:
        return moves
    cells = view.grid.cells
    value = view.rules.value
    origin_of = {card: cell for card, cell in view.candidates}
    covers, ducks = [], []
    for index, move in enumerate(moves):
        if move.to in cells:
            covers.append(move)
            continue
        origin = origin_of[move.card]
        near = [value(cells[c][-1].number) for c in neighbours(move.to) if c in cells and c != origin]
        ducks.append((-max(near), -sum(near), index, move))
    ducks.sort()
    return covers + [move for *_, move in ducks[:MAX_DUCKS]]


class ExpertBot(Bot):
    name = "expert"
    description = "Looks ahead: Monte-Carlo rollouts of the rest of the round for every legal move."

    def choose(self, view):
        if not view.candidates:
            return None
        if view.phase is Phase.GIFT:
            return self._gift(view)
        if view.phase is Phase.PLACE:
            return self._place(view)
        moves = shortlist(view, view.legal_moves())
        if len(moves) == 1:
            return moves[0]
        return self._search(view, moves)

    # --- low blows: quick judgement, no search ----------------------------------------------
    def _gift(self, view):
        """Hand over the costliest duck allowed: it leaves our score and joins the neighbour's."""
        value = view.rules.value
        return Move(max(view.candidates, key=lambda c: (value(c[0].number), c[0].number))[0], None)

    def _place(self, view):
        """Put the received (low) duck next to our costliest visible duck, ready to cover it."""
        value = view.rules.value
        cells = view.grid.cells
        best, best_worth = None, -1
        for move in view.legal_moves():
            worth = max((value(cells[c][-1].number) for c in neighbours(move.to) if c in cells), default=0)
            if worth > best_worth:
                best, best_worth = move, worth
        return best

    # --- advice (the app's hint key) --------------------------------------------------------
    def analyse(self, view, budget=None):
        """Every shortlisted move with its estimate, best first: [(move, estimate)].

        The estimate is what `choose` minimises: the mean over rollouts of our round score
        minus the others' mean (the team total if cooperative); lower is better. Gifts and
        placements use quick rules, so their one move comes with NaN. `budget` overrides the
        rollouts for this call only. Reads `view` alone, like `choose`.
        """
        if not view.candidates:
            return []
        if view.phase is Phase.GIFT:
            return [(self._gift(view), math.nan)]
        if view.phase is Phase.PLACE:
            return [(self._place(view), math.nan)]
        moves = shortlist(view, view.legal_moves())
        saved = self.budget
        if budget is not None:
            self.budget = budget
        try:
            return self._search(view, moves, ranked=True)
        finally:
            self.budget = saved

    # --- the search --------------------------------------------------------------------------
    def _search(self, view, moves, ranked=False):
        budget = max(len(moves), self.budget if self.budget is not None else DEFAULT_BUDGET)
        step_cap = budget * STEPS_PER_ROLLOUT
        sim = Rollouts(view, [self.rng.getrandbits(62) for _ in range(budget)])
        alive = list(range(len(moves)))
        # A first sample for everyone measures how long a rollout runs from here.
        totals = [sim.rollout(move, 0) for move in moves]
        rollouts = len(moves)
        done = 1  # samples so far for every live candidate (shared seeds: common random numbers)
        counts = [1] * len(moves)
        rounds = max(1, math.ceil(math.log2(len(moves))))
        # An optional wall-clock limit (the app may set one) cuts the search short; without it
        # the work depends on the budget alone, so a seed replays the same decision anywhere.
        deadline = time.perf_counter() + 0.8 * self.time_limit if self.time_limit else None
        for r in range(rounds):
            # Spend the remaining work evenly over the remaining rounds, in simulated moves:
            # early in a round rollouts are long, so fewer of them fit (the time bound holds).
            per_rollout = max(1.0, sim.steps / rollouts)
            per = int((step_cap - sim.steps) / ((rounds - r) * len(alive) * per_rollout))
            per = min(per, budget - done)
            if per > 0:
                for i in alive:
                    if deadline is not None and time.perf_counter() > deadline:
                        break
                    move = moves[i]
                    totals[i] += sum(sim.rollout(move, j) for j in range(done, done + per))
                    counts[i] += per
                done += per
                rollouts += per * len(alive)
            if deadline is not None and time.perf_counter() > deadline:
                break
            if r < rounds - 1:  # keep the better half; the survivors share every sample so far
                alive.sort(key=lambda i: (totals[i], i))
                alive = alive[: (len(alive) + 1) // 2]
        if ranked:  # the survivors first (most samples), then the moves halved away earlier
            order = sorted(alive, key=lambda i: (totals[i] / counts[i], i))
            order += sorted(set(range(len(moves))) - set(alive), key=lambda i: (totals[i] / counts[i], i))
            return [(moves[i], totals[i] / counts[i]) for i in order]
        best = min(alive, key=lambda i: (totals[i] / counts[i], i))
        return moves[best]
