"""expert: a look-ahead player. Monte-Carlo rollouts of the rest of the round, per legal move.

How it decides (see docs in the module's functions):
- From the view alone it rebuilds what a careful player knows: the multiset of cards still in
  the draw deck (the round's deck minus everything flipped since the last reshuffle; under
  Surprises the two removed cards stay in the unknown pool), the Captain pile's contents, the
  Discard count and what a Repeat would repeat. Never the deck order: each rollout shuffles it.
- Every candidate move is played out against the SAME sampled futures (common random numbers),
  in a compact tops-only simulator: per seat a dict cell -> visible number. Covered cards never
  come back and never score, so nothing else matters for the rest of the round.
- Everybody in a rollout plays greedy (cover the costliest neighbour, else a random duck): the
  baseline's own policy, and fast. The rollout ends like the round does (a single stack, the
  Discard limit, the turn cap) and scores our round score against the others' mean (plus
  points for several stacks, minus the top for a single stack), so the race is in the sums:
  ending on one stack ourselves, or an opponent ending while our high cards are still visible.
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
from collections import Counter

from duckcover.bot import Bot
from duckcover.cards import MAX, REPEAT
from duckcover.game import Phase
from duckcover.moves import Move
from duckcover.rules import COOPERATIVE, LOW_BLOWS, PRESSURE, SURPRISE_CARDS, SURPRISES, TURN_CAP, TWO_FLIPS

STEPS_PER_ROLLOUT = 24  # the work cap: budget x this many simulated seat moves per decision
NOISE = 4096  # shared random numbers for the rollouts' random ducks (a power of two)
MASK = NOISE - 1
MAX_DUCKS = 4  # ducks kept for the search (see shortlist); None keeps them all
# Rollouts per decision. Measured vs greedy (benchmarks/expert_strength.py, same deals):
# 300 -> -10.4, 500 -> -11.6, 800 -> -11.8 points per game; 500 keeps the median near 30 ms.
DEFAULT_BUDGET = 500


def _neighbours(cell):
    x, y = cell
    return ((x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1))


class Knowledge:
    """What the seat knows about the captain cards: unseen draw pool, pile, discards, Repeat target."""

    __slots__ = ("pool", "draw_size", "exact", "pile", "discards", "previous")

    def __init__(self, view):
        rules = view.rules
        deck = rules.deck()
        two_flips, low_blows = rules.has(TWO_FLIPS), rules.has(LOW_BLOWS)
        draw_left = len(deck) - (SURPRISE_CARDS if rules.has(SURPRISES) else 0)
        flipped: list[int] = []  # flipped from the round's first deck
        rebuilt: Counter | None = None  # the draw deck's contents once rebuilt from the pile
        pile: list[int] = []
        previous = None
        current = view.flips if view.phase in (Phase.MOVE, Phase.GIFT, Phase.PLACE) else ()
        turns = [(t.flips, t.discarded) for t in view.history] + ([(current, None)] if current else [])
        for flips, discarded in turns:
            for code in flips:
                if draw_left == 0:  # the engine rebuilds the draw deck from the pile before drawing
                    rebuilt, pile, draw_left = Counter(pile), [], len(pile)
                draw_left -= 1
                if rebuilt is None:
                    flipped.append(code)
                else:
                    rebuilt[code] -= 1
                previous = _resolve(code, previous, low_blows, two_flips)
            if discarded is None:  # the current turn: the seat moves, so its flips go to the pile
                pile.extend(flips)
            elif discarded:
                previous = None
            else:
                pile.extend(flips)
        if rebuilt is None:
            pool = Counter(deck)
            pool.subtract(flipped)
        else:
            pool = rebuilt
        self.pool = sorted(pool.elements())
        self.draw_size = min(view.draw_size, len(self.pool))
        self.exact = len(self.pool) == self.draw_size
        self.pile = pile
        self.discards = len(view.discard)
        self.previous = previous

    def sample_draw(self, rng: random.Random) -> list[int]:
        """A draw deck consistent with what was seen (pop() takes the top)."""
        cards = list(self.pool)
        rng.shuffle(cards)
        return cards if self.exact else cards[: self.draw_size]


def _resolve(code, previous, low_blows, two_flips):
    """What a Repeat would repeat after `code` is flipped (None: nothing)."""
    if low_blows and code in (MAX, REPEAT):
        return None
    if code == REPEAT:
        return previous
    return code


class Simulator:
    """The rest of a round on tops only, with every seat playing a fast greedy-like policy."""

    def __init__(self, view):
        rules = view.rules
        self.n = view.players
        self.seat = view.seat
        self.value = [0] + [rules.value(n) for n in range(1, 13)]
        self.max_key = [0] + [rules.max_key(n) for n in range(1, 13)]
        self.limit = rules.discard_limit(self.n)
        self.two_flips = rules.has(TWO_FLIPS)
        self.low_blows = rules.has(LOW_BLOWS)
        self.cooperative = rules.has(COOPERATIVE)
        self.double_minus = rules.has(PRESSURE) and view.round_index == view.rounds - 1
        self.turn0 = len(view.history) + 1
        self.knowledge = Knowledge(view)
        self.steps = 0  # simulated seat moves so far: the search's deterministic measure of work
        self.grids = [{cell: g.cells[cell][-1].number for cell in g.cells} for g in view.grids]

    # --- one seat's policy --------------------------------------------------------------
    def _origins(self, g, where, option):
        if option == MAX:
            key = self.max_key
            best = max(key[n] for n in g.values())
            return [where[n] for n in g.values() if key[n] == best]
        cell = where.get(option)
        return [cell] if cell is not None and g.get(cell) == option else []

    def _greedy(self, g, where, origins, rand):
        """Cover the neighbour worth most; with no cover, duck next to a random other stack."""
        value = self.value
        best_from = best_to = None
        best = -1
        for origin in origins:
            x, y = origin
            for to in ((x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1)):
                n = g.get(to)
                if n is not None and value[n] > best:
                    best_from, best_to, best = origin, to, value[n]
        if best_to is not None:
            number = g.pop(best_from)
            covered = g[best_to]
            if where.get(covered) == best_to:
                del where[covered]
            g[best_to] = number
            where[number] = best_to
            return
        if len(g) < 2:
            return
        origin = origins[int(rand() * len(origins))]
        cells = list(g)
        while True:  # a random empty side of a random other stack (one always exists)
            x, y = cells[int(rand() * len(cells))]
            if (x, y) == origin:
                continue
            r = int(rand() * 4)
            to = (x, y - 1) if r == 0 else (x - 1, y) if r == 1 else (x + 1, y) if r == 2 else (x, y + 1)
            if to not in g:
                number = g.pop(origin)
                g[to] = number
                where[number] = to
                return

    # --- rollouts -----------------------------------------------------------------------
    def scores(self, grids) -> list[int]:
        value = self.value
        out = []
        for g in grids:
            if len(g) == 1:
                (n,) = g.values()
                out.append(-value[n] * (2 if self.double_minus else 1))
            else:
                out.append(sum(value[n] for n in g.values()))
        return out

    def outcome(self, grids) -> float:
        """Lower is better: own round score minus the others' mean (the team total if cooperative)."""
        scores = self.scores(grids)
        if self.cooperative:
            return float(sum(scores))
        mine = scores[self.seat]
        return mine - (sum(scores) - mine) / (self.n - 1)

    def sample(self, seeds: list[int]) -> None:
        """Seeds for the samples; each one fixes a draw deck, the others' current answers and the
        random ducks' luck, shared by every candidate move (common random numbers). Built on
        first use: early in a round the work cap allows fewer samples than the budget."""
        self.seeds = seeds
        self.starts: list = [None] * len(seeds)
        table = random.Random(seeds[0])
        self.noise = [table.random() for _ in range(NOISE + 32)]  # 26 cards past the mask at most

    def _start(self, index: int, options) -> tuple:
        """Sample `index` before our move: the others' answers to the current call (they choose at
        the same time as we do, so they cannot depend on our move) and the draw deck. Cached."""
        start = self.starts[index]
        if start is None:
            rng = random.Random(self.seeds[index])
            draw = self.knowledge.sample_draw(rng)
            grids = [dict(g) for g in self.grids]
            wheres = [{n: c for c, n in g.items()} for g in grids]
            for s, (g, w) in enumerate(zip(grids, wheres)):
                origins = [c for o in options for c in self._origins(g, w, o)] if s != self.seat else ()
                if origins and len(g) > 1:
                    self._greedy(g, w, origins, rng.random)
            slots = []  # number -> cell (None: not visible), the fast lookup of the plain play-out
            for w in wheres:
                slot = [None] * 15
                for n, c in w.items():
                    slot[n] = c
                slots.append(slot)
            start = self.starts[index] = (grids, wheres, draw, slots)
        return start

    def rollout(self, my_move, options, index: int) -> float:
        """Play `my_move` (origin, to) on the current call, then the rest of the round, in sample `index`."""
        k = self.knowledge
        base_grids, base_wheres, base_draw, base_slots = self._start(index, options)
        grids = [g.copy() for g in base_grids]  # dict.copy clones; dict() re-inserts after a pop
        plain = not (self.two_flips or self.low_blows)
        wheres = [w[:] for w in base_slots] if plain else [dict(w) for w in base_wheres]
        seat = self.seat
        if my_move is not None:
            origin, to = my_move
            g, w = grids[seat], wheres[seat]
            number = g.pop(origin)
            if to in g:
                covered = g[to]
                if plain:
                    w[covered] = None
                elif w.get(covered) == to:
                    del w[covered]
            g[to] = number
            w[number] = to
        for g in grids:
            if len(g) == 1:
                return self.outcome(grids)
        draw = list(base_draw)
        pile = list(k.pile)
        seed = self.seeds[index]
        if plain:
            return self._play_out_plain(grids, wheres, draw, pile, k.discards, k.previous, self.turn0, self.noise, seed & MASK)
        return self._play_out(grids, wheres, draw, pile, k.discards, k.previous, self.turn0, random.Random(seed))

    def _play_out_plain(self, grids, wheres, draw, pile, discards, previous, turn, noise, offset) -> float:
        """The common case (one flip a turn, no gifts), inlined: this loop is the bot's hot spot.

        Random ducks read `noise` at an index fixed by (turn, seat), so a seat's luck in a sample
        does not depend on what other seats did: sharper common random numbers between candidates.
        """
        value, max_key = self.value, self.max_key
        by_number = max_key[1:] == sorted(max_key[1:])
        limit = self.limit if self.limit is not None else 1 << 30
        seats = list(zip(grids, wheres))
        work = 0
        while turn < TURN_CAP:
            turn += 1
            if not draw:
                if not pile:
                    break
                # The Captain pile becomes the draw deck: shuffled by sorting on shared noise.
                k = (offset + turn * 37) & MASK
                draw = [c for _, c in sorted(zip(noise[k : k + len(pile)], pile))]
                pile = []
            flip = code = draw.pop()
            if code == REPEAT:
                code = previous
                if code is None:  # nothing to repeat: straight to the Discard area
                    discards += 1
                    if discards >= limit:
                        break
                    continue
            previous = code
            moved = False
            single = False
            for s, (g, w) in enumerate(seats):
                if code == MAX:
                    top = max(g.values()) if by_number else max(g.values(), key=max_key.__getitem__)
                    origin = w[top]
                else:
                    origin = w[code]
                    if origin is None:
                        continue
                moved = True
                work += 1
                x, y = origin
                best_to = None
                best = -1
                for to in ((x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1)):
                    n = g.get(to)
                    if n is not None and value[n] > best:
                        best_to, best = to, value[n]
                number = g.pop(origin)
                if best_to is not None:
                    w[g[best_to]] = None
                    g[best_to] = number
                    w[number] = best_to
                    if len(g) == 1:
                        single = True
                    continue
                cells = list(g)
                k = (offset + turn * 8 + s * 2) & MASK
                while True:  # a random empty side of a random other stack (one always exists)
                    cx, cy = cells[int(noise[k] * len(cells))]
                    r = int(noise[k + 1] * 4)
                    k = (k + 2) & MASK
                    to = (cx, cy - 1) if r == 0 else (cx - 1, cy) if r == 1 else (cx + 1, cy) if r == 2 else (cx, cy + 1)
                    if to not in g and to != origin:
                        break
                g[to] = number
                w[number] = to
            if single:
                break
            if not moved:
                discards += 1
                previous = None
                if discards >= limit:
                    break
            else:
                pile.append(flip)
        self.steps += work + 1
        return self.outcome(grids)

    def _play_out(self, grids, wheres, draw, pile, discards, previous, turn, rng) -> float:
        rand = rng.random
        n_seats = range(self.n)
        limit = self.limit
        two_flips, low_blows = self.two_flips, self.low_blows
        greedy, origins_of = self._greedy, self._origins
        while turn < TURN_CAP:
            turn += 1
            codes = []
            for _ in range(2 if two_flips else 1):
                if not draw:
                    if not pile:
                        return self.outcome(grids)
                    draw, pile = pile, []
                    rng.shuffle(draw)
                codes.append(draw.pop())
            options = []
            for code in codes:
                if low_blows and code in (MAX, REPEAT):
                    previous = None  # a gift: approximated as nobody moving here
                    continue
                if code == REPEAT:
                    code = previous
                previous = code
                if code is not None and code not in options:
                    options.append(code)
            moved = False
            if options:
                for s in n_seats:
                    g, w = grids[s], wheres[s]
                    if len(options) == 1:
                        origins = origins_of(g, w, options[0])
                    else:
                        origins = [c for o in options for c in origins_of(g, w, o)]
                    if origins:
                        greedy(g, w, origins, rand)
                        moved = True
                        self.steps += 2  # this general loop costs about twice the plain one
            if moved or two_flips or (low_blows and not options and codes):
                pile.extend(codes)
            else:
                discards += len(codes)
                previous = None
                if limit is not None and discards >= limit:
                    break
            if moved:
                for g in grids:
                    if len(g) == 1:
                        return self.outcome(grids)
        return self.outcome(grids)


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
        near = [value(cells[c][-1].number) for c in _neighbours(move.to) if c in cells and c != origin]
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
            worth = max((value(cells[c][-1].number) for c in _neighbours(move.to) if c in cells), default=0)
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
        sim = Simulator(view)
        origin_of = {card: cell for card, cell in view.candidates}
        actions = [(origin_of[m.card], m.to) for m in moves]
        options = view.call.options if view.call.kind == "move" else ()
        budget = max(len(moves), self.budget if self.budget is not None else DEFAULT_BUDGET)
        step_cap = budget * STEPS_PER_ROLLOUT
        seeds = [self.rng.getrandbits(62) for _ in range(budget)]
        sim.sample(seeds)
        alive = list(range(len(moves)))
        # A first sample for everyone measures how long a rollout runs from here.
        totals = [sim.rollout(action, options, 0) for action in actions]
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
                    action = actions[i]
                    totals[i] += sum(sim.rollout(action, options, j) for j in range(done, done + per))
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
