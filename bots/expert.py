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
  the gaps between moves). They race (see `race`): a batch of samples each, then every move
  clearly worse than the leader drops out, and the race stops when one move is left or when
  no other could beat the leader by more than a hair. Clear decisions end after a few dozen
  rollouts; close ones get the budget. `budget` is the most samples per move; a cap on
  simulated moves keeps the long rollouts of a round's first turns within the same time.
- Low-blows gifts and placements use quick rules (see `_gift`, `_place`), no search.
"""
from __future__ import annotations

import math
import random
import time
from typing import NamedTuple

from duckcover.engine import Game, Move, Phase
from duckcover.engine.grid import costliest_cover, duck_targets, neighbours
from duckcover.players.bot import Bot

STEPS_PER_ROLLOUT = 24  # the work cap: budget x this many simulated seat moves per decision
NOISE = 4096  # shared random numbers for the rollouts' random ducks (a power of two)
MASK = NOISE - 1
MAX_DUCKS = 4  # ducks kept for the search (see shortlist); None keeps them all
# Samples per move at most. Measured vs greedy with the former tops-only simulator
# (benchmarks/expert_strength.py, same deals): 300 -> -10.4, 500 -> -11.6, 800 -> -11.8 points
# per game. On the engine a rollout costs about 4x as much as it did in that simulator; the race
# (below) gets the time back by stopping clear decisions early. Measured 2026-12-01, arena 2 v 2
# against the simulator version with successive halving (duplicate deals, every seating; points
# per game against the field, lower is better): 50 deals (seed 11) -0.35, 95% CI [-1.16, +0.45];
# 100 more deals (seed 23) +0.46 [-0.03, +0.95]; 100 more (seed 37) -0.33 [-0.79, +0.13]; the
# 250 pooled -0.02 [-0.33, +0.29], no difference either way. Decision p50 (benchmarks/bots.py) 18.0 ms against the simulator's
# 16.1 ms, 1.12x. With MIN_SAMPLES 16: -0.32 [-1.01, +0.37] on the first 50, but 1.45x.
DEFAULT_BUDGET = 500
BATCH = 8  # samples per live move between two looks at the race
MIN_SAMPLES = 8  # no move is judged on fewer (the first look at the race)
Z = 2.0  # standard errors that make a difference clear
INDIFFERENT = 0.25  # points per round: a possible gain below this is not worth more rollouts

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
        self.cooperative = view.rules.team
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
                cover = costliest_cover(grid, candidates, values)
                if cover is not None:
                    moves[seat] = _new_tuple(Move, cover)
                    continue
                card, origin = candidates[int(noise[k + 2] * len(candidates))]
                moves[seat] = _new_tuple(Move, (card, self.duck(grid, origin, k)))
            elif phase is GIFT:
                moves[seat] = _new_tuple(Move, (max(candidates, key=lambda c: values[c[0].number])[0], None))
            else:  # PLACE
                targets = duck_targets(grid, None)
                moves[seat] = _new_tuple(Move, (candidates[0][0], targets[int(noise[k] * len(targets))]))
        return moves

    def duck(self, grid, origin, k: int):
        """Where a rollout's seat ducks the stack at `origin`: a random empty side of a random
        other stack (one always exists), read from `noise` at `k` on."""
        noise = self.noise
        cells = list(grid)
        while True:
            cell = cells[int(noise[k] * len(cells))]
            to = neighbours(cell)[int(noise[k + 1] * 4)]
            k = (k + 2) & MASK
            if cell != origin and to not in grid:
                return to


def beside_the_costliest(near: list[int]) -> tuple:
    """The expert's order of ducks, from the values of the other stacks the cell touches:
    the costliest neighbour first, then their sum."""
    return -max(near), -sum(near)


def shortlist(view, moves: list[Move], rank=beside_the_costliest) -> list[Move]:
    """Every cover, and the few ducks that land beside the costliest neighbours (first by `rank`).

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
        ducks.append((*rank(near), index, move))
    ducks.sort()
    return covers + [move for *_, move in ducks[:MAX_DUCKS]]


class ExpertBot(Bot):
    name = "expert"
    version = "1"  # bump when its decisions change: ratings start it afresh
    description = "Looks ahead: Monte-Carlo rollouts of the rest of the round for every legal move."
    rollouts = Rollouts  # the simulator of the rest of the round (a stronger bot may bring its own)
    duck_rank = staticmethod(beside_the_costliest)  # which ducks the shortlist keeps (see shortlist)

    def choose(self, view):
        if not view.candidates:
            return None
        if view.phase is Phase.GIFT:
            return self._gift(view)
        if view.phase is Phase.PLACE:
            return self._place(view)
        moves = shortlist(view, view.legal_moves(), self.duck_rank)
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

    # --- advice (the app's hint key) and estimates (the review) ------------------------------
    def analyse(self, view, budget=None):
        """Every shortlisted move with its estimate, best first: [(move, estimate)].

        The estimate is what `choose` minimises: the mean over rollouts of our round score
        minus the others' mean (the team total if cooperative); lower is better. Gifts and
        placements use quick rules, so their one move comes with NaN. `budget` overrides the
        rollouts for this call only. Reads `view` alone, like `choose`. A view of `estimate`.
        """
        return [(found.move, found.value) for found in self.estimate(view, budget=budget)]

    def estimate(self, view, moves=None, *, key=None, budget=None, follow=None, precision=None, steps=None):
        """The search's one interface: estimates of moves for `view`, best first, as `Estimate`s.

        `moves`: the moves to estimate (None: the shortlist `choose` considers; pass
        `view.legal_moves()` for every legal move). `key`: the samples' key (None: this bot's
        `rng`, as `choose` uses it); the same view, moves, key and budget give the same figures.
        `follow`: a move kept in the race, even when clearly worse, until the standard error of
        its gap to the leader is at most `precision` points, or until `precision(gap, stderr)`
        says it is known well enough (or the budget is spent): what a review needs to say how
        much a played move cost. Gifts and placements use quick rules:
        one move, NaN estimate. `steps`: simulated seat moves at most (None: `budget` x
        STEPS_PER_ROLLOUT, the bot's work cap; a review can afford more). Reads `view` alone.
        """
        if not view.candidates:
            return []
        if view.phase is Phase.GIFT:
            return [Estimate(self._gift(view), math.nan, math.nan, 0.0, 0.0, 0)]
        if view.phase is Phase.PLACE:
            return [Estimate(self._place(view), math.nan, math.nan, 0.0, 0.0, 0)]
        moves = shortlist(view, view.legal_moves(), self.duck_rank) if moves is None else list(dict.fromkeys(moves))
        if follow is not None and follow not in moves:
            moves.append(follow)
        rng = self.rng if key is None else random.Random(key)
        saved = self.budget
        if budget is not None:
            self.budget = budget
        try:
            results, alive = self._race(view, moves, rng, ranked=True,
                                        follow=None if follow is None else moves.index(follow),
                                        precision=0.0 if precision is None else precision, steps=steps)
        finally:
            self.budget = saved
        return estimates(moves, results, alive)

    # --- the search --------------------------------------------------------------------------
    def _search(self, view, moves, ranked=False):
        """The move `choose` plays (with `ranked`, every move's (move, estimate), best first)."""
        results, alive = self._race(view, moves, self.rng, ranked=ranked)
        if ranked:
            return [(found.move, found.value) for found in estimates(moves, results, alive)]
        mean = [sum(r) / len(r) if r else math.inf for r in results]
        return moves[min(alive, key=lambda i: (mean[i], i))]

    def _race(self, view, moves, rng, ranked=False, follow=None, precision=None, steps=None):
        """Race the moves on shared samples: a batch of rollouts each, then drop every move that is
        clearly worse than the leader; stop when one is left, when the rest are within a hair of
        the leader, or when the budget (rollouts per move, and simulated moves) is spent.
        Returns every move's outcomes per sample and the moves still in the race, leader first.
        `follow` (an index) stays in the race until its gap is known to `precision` points."""
        budget = max(len(moves), self.budget if self.budget is not None else DEFAULT_BUDGET)
        step_cap = budget * STEPS_PER_ROLLOUT if steps is None else steps
        sim = self.rollouts(view, [rng.getrandbits(62) for _ in range(budget)])
        results: list[list[float]] = [[] for _ in moves]  # per move, per sample: lower is better
        alive = list(range(len(moves)))
        done = rollouts = 0  # samples every live move has played; rollouts in all
        # An optional wall-clock limit (the app may set one) cuts the search short; without it
        # the work depends on the budget alone, so a seed replays the same decision anywhere.
        deadline = time.perf_counter() + 0.8 * self.time_limit if self.time_limit else None
        while (len(alive) > 1 or (ranked and not done)) and done < budget:  # advice has an estimate
            batch = min(BATCH, budget - done)
            if rollouts:  # keep within the work cap, measured in simulated moves so far
                per_rollout = max(1.0, sim.steps / rollouts)
                batch = min(batch, int((step_cap - sim.steps) / (len(alive) * per_rollout)))
                if batch <= 0:
                    break
            for i in alive:
                results[i].extend(sim.rollout(moves[i], j) for j in range(done, done + batch))
            done += batch
            rollouts += batch * len(alive)
            if deadline is not None and time.perf_counter() > deadline:
                break
            alive = race(results, alive, done)
            if follow is not None and follow not in alive and not known(precision, *paired_gap(results[follow], results[alive[0]])):
                alive.append(follow)  # not known well enough yet: it keeps playing the samples
        return results, alive


class Estimate(NamedTuple):
    """One move's estimate: `value` is the mean rollout outcome (lower is better), `stderr` its
    standard error; `gap` is value minus the leader's on the samples both played (0 for the
    leader), `gap_stderr` its standard error from the paired differences (common random numbers
    make it far smaller than `stderr`); `samples` the rollouts the move played."""

    move: Move
    value: float
    stderr: float
    gap: float
    gap_stderr: float
    samples: int


def known(precision, gap: float, stderr: float) -> bool:
    """Whether a followed move's gap is known well enough: `precision` is a standard error in
    points, or a test `precision(gap, stderr) -> bool` (a review asks for what its marks need)."""
    return precision(gap, stderr) if callable(precision) else stderr <= precision


def estimates(moves, results, alive) -> list[Estimate]:
    """The moves still in the race first (the leader first, most samples), then those dropped,
    each group by mean."""
    mean = [sum(r) / len(r) if r else math.inf for r in results]
    order = sorted(alive, key=lambda i: (mean[i], i))
    order += sorted(set(range(len(moves))) - set(alive), key=lambda i: (mean[i], i))
    leader = results[order[0]]
    found = []
    for i in order:
        gap, gap_stderr = paired_gap(results[i], leader) if i != order[0] else (0.0, 0.0)
        found.append(Estimate(moves[i], mean[i], standard_error(results[i]), gap, gap_stderr, len(results[i])))
    return found


def standard_error(values: list[float]) -> float:
    n = len(values)
    if n < 2:
        return math.inf
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


def paired_gap(results: list[float], leader: list[float]) -> tuple[float, float]:
    """Mean and standard error of `results` minus `leader`, sample by sample (the shared ones)."""
    diffs = [a - b for a, b in zip(results, leader)]
    if not diffs:
        return math.inf, math.inf
    return sum(diffs) / len(diffs), standard_error(diffs)


def race(results: list[list[float]], alive: list[int], done: int) -> list[int]:
    """The moves still worth sampling, the leader first.

    Every live move has played the same `done` samples, so each challenger is judged by its
    paired differences with the leader (common random numbers make their spread small). A
    move whose difference is more than Z standard errors above zero is dropped. When every
    challenger's possible advantage (Z standard errors below its mean difference) is under
    INDIFFERENT points, the choice cannot matter much: only the leader stays.
    """
    leader = min(alive, key=lambda i: (sum(results[i]), i))
    best = results[leader]
    kept, close = [leader], True
    for i in alive:
        if i == leader:
            continue
        diffs = [a - b for a, b in zip(results[i], best)]
        mean = sum(diffs) / done
        spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (done - 1) / done) if done > 1 else math.inf
        if done >= MIN_SAMPLES and mean > Z * spread:
            continue  # clearly worse
        kept.append(i)
        if not (done >= MIN_SAMPLES and Z * spread - mean < INDIFFERENT):
            close = False
    return [leader] if close else kept
