"""The rules engine: one game of Duck & Cover as a state machine driven by joint moves.

A turn has two steps. `flip()` turns over the captain card and fixes what it calls;
then `play(moves)` takes every seat's choice at once, checks each against the position
*before* any of them applies, and applies them together (simultaneity by construction).
Low blows add a second joint step: gifts first, then the receivers' placements.

Grids are copy-on-write: a grid dict is never changed once stored, so views and
snapshots can hold it without copying and without seeing later moves.
"""
from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

from .cards import CARDS, MAX, NUMBERS, REPEAT, Card, flip_name
from .errors import IllegalMoveError, Refusal, RulesError
from .grid import Cell, Stack
from .legality import illegal_reason, legal_moves
from .moves import Call, Move, Phase, Turn
from .rules import TURN_CAP, Rules
from .view import GridView, PlayerView, RoundFacts, TurnFacts, grid_view

START_COLUMNS, START_ROWS = 4, 3
START_CELLS = tuple((x, y) for y in range(START_ROWS) for x in range(START_COLUMNS))  # reading order


# Looking up an enum member (Phase.MOVE) costs about 60 ns in CPython 3.11 and the turn loop
# does a dozen a flip, so the engine names the phases once.
FLIP, MOVE, GIFT, PLACE, ROUND_OVER, GAME_OVER = (
    Phase.FLIP, Phase.MOVE, Phase.GIFT, Phase.PLACE, Phase.ROUND_OVER, Phase.GAME_OVER
)
CHOOSING = (MOVE, GIFT, PLACE)


def new_seed() -> int:
    """The one maker of game seeds, for every game dealt without a given seed (local play, the
    arena, the server's tables): 128 random bits from the OS, too many to find by matching the
    face-up layouts against candidate seeds (a 32-bit seed falls to that in minutes)."""
    return secrets.randbits(128)
DEAD_CALL, GIFT_CALL = Call("dead"), Call("gift")
CARDS_NUMBERED = (None, *(tuple(family[number] for family in CARDS) for number in NUMBERS))  # [n][seat]
SINGLE_CALLS = {code: Call("move", (code,)) for code in (*NUMBERS, MAX)}  # shared, immutable
NUMBER_CALLS = {SINGLE_CALLS[number]: CARDS_NUMBERED[number] for number in NUMBERS}  # call -> [seat]'s card
SINGLE_STACK, DISCARD_LIMIT, CAPPED = "single-stack", "discard-limit", "turn-cap"
_new_tuple = tuple.__new__  # builds a NamedTuple without its Python-level __new__
_new_object = object.__new__


class RoundOutcome(NamedTuple):
    """Why a round ended and what it scored."""

    reason: str  # "single-stack", "discard-limit" or "turn-cap"
    scores: tuple[int, ...]
    stacks: tuple[int, ...]  # stacks (visible cards) per seat at the end
    single_stack: tuple[int, ...]  # seats that finished on one stack


class GameOutcome(NamedTuple):
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    decided_by: str  # "score", "fewest-cards", "shared" (a tie that stood), "team" (cooperative)


@dataclass
class RoundLog:
    """Everything needed to write a round into a record, as it really happened."""

    captain: int
    layouts: list[list[list[int]]]
    deck: list[int]  # draw order at round start, top first (after Surprises removals)
    removed: list[int] = field(default_factory=list)
    reshuffles: list[list[int]] = field(default_factory=list)  # each new draw order, top first
    turns: list[Turn] = field(default_factory=list)
    outcome: RoundOutcome | None = None
    # The table when the round ended (grids are never changed once stored, so no copies).
    end_grids: tuple[dict[Cell, Stack], ...] = ()
    end_discard: tuple[int, ...] = ()
    end_pile: tuple[int, ...] = ()


def shuffled(items: Sequence[int], rng: random.Random) -> list[int]:
    """A uniformly random order. Sorting by random keys costs a fraction of random.shuffle,
    which matters when simulations deal thousands of rounds a second."""
    keys = [rng.random() for _ in items]
    return [items[i] for i in sorted(range(len(items)), key=keys.__getitem__)]


def random_layout(rng: random.Random) -> list[list[int]]:
    """shuffled(NUMBERS, rng) in rows, sorting the numbers by their keys directly (the same
    order, less work: every round deals one layout per seat)."""
    draw = rng.random
    keys = [0.0, *[draw() for _ in NUMBERS]]  # keys[n] for the number n
    numbers = sorted(NUMBERS, key=keys.__getitem__)
    return [numbers[0:4], numbers[4:8], numbers[8:12]]  # START_ROWS rows of START_COLUMNS


def check_layout(layout: object) -> list[list[int]]:
    """A starting layout: 3 rows of 4 numbers, a permutation of 1-12. ValueError otherwise."""
    if (
        not isinstance(layout, list)
        or len(layout) != START_ROWS
        or not all(isinstance(row, list) and len(row) == START_COLUMNS for row in layout)
    ):
        raise ValueError(Refusal("layout-shape", "a layout is 3 rows of 4 numbers"))
    flat = [n for row in layout for n in row]
    if any(type(n) is not int for n in flat) or sorted(flat) != list(NUMBERS):
        raise ValueError(Refusal("layout-numbers", "a layout must hold each of the numbers 1-12 once"))
    return layout


def _seed_rng(seed: int, *parts: object) -> random.Random:
    # String seeds hash with SHA-512: stable across runs and Python versions.
    return random.Random(":".join(["duckcover", str(seed), *map(str, parts)]))


class Game:
    """A whole game: rounds, turns, scores. Not thread-safe; views are."""

    def __init__(
        self,
        players: Sequence[str] | int,
        rules: Rules | None = None,
        seed: int | None = None,
        first_captain: int = 0,
        *,
        start: bool = True,
    ):
        names = [f"Player {i + 1}" for i in range(players)] if isinstance(players, int) else list(players)
        self.rules = rules or Rules()
        self.rules.check_players(len(names))
        if not 0 <= first_captain < len(names):
            raise RulesError(f"the first captain must be a seat 0-{len(names) - 1}")
        self.names: tuple[str, ...] = tuple(names)
        self.n = len(names)
        self.seed = new_seed() if seed is None else seed
        self.first_captain = first_captain
        self.rounds: list[RoundLog] = []
        self.results: list[RoundOutcome] = []
        self.phase = ROUND_OVER
        self._totals: tuple[int, ...] = (0,) * self.n
        self._awaiting: tuple[int, ...] = ()
        self._round_scores: tuple[tuple[int, ...], ...] = ()
        self._version = 0  # bumped by every change, so views know when to rebuild
        self._turn_facts: TurnFacts | None = None  # what every seat's view of the turn shares, as of
        self._turn_version = -1  # this version (see view())
        self._round_rules = self.rules.for_round(0)
        self._unseen = 0  # cards in the draw deck that are really out of play (see start_round)
        if start:
            self.start_round()

    # --- rounds -----------------------------------------------------------------------
    @property
    def round_index(self) -> int:
        return len(self.rounds) - 1

    @property
    def round(self) -> RoundLog:
        return self.rounds[-1]

    @property
    def captain(self) -> int:
        return self.round.captain

    @property
    def round_rules(self) -> Rules:
        """The rules in force in the current round (a variant may apply to some rounds only)."""
        return self._round_rules

    def start_round(
        self,
        layouts: Sequence[list[list[int]]] | None = None,
        removed: Sequence[int] | None = None,
        captain: int | None = None,
        deck: Sequence[int] | None = None,
        *,
        unseen: bool = False,
    ) -> None:
        """Deal a new round. Anything not given comes from the game's seed.

        `unseen`: the round as a player at the table knows it, for a mirror of a game played
        elsewhere. Under Surprises nobody knows which two cards were removed, so `deck` holds
        the round's whole set and the two unknown cards stay in it, out of play: every flip
        must name its card, `draw_size` leaves them out, and the deck runs out (the Captain
        pile is reshuffled into a new one) when only they are left, as at the real table.
        """
        if self.phase is not ROUND_OVER or len(self.rounds) >= self.rules.rounds():
            raise IllegalMoveError(Refusal("round-not-ended", "a new round starts only after the previous one ended"))
        index = len(self.rounds)
        rules = self._round_rules = self.rules.for_round(index)  # variants may apply to some rounds only
        deal = _seed_rng(self.seed, index)  # one stream per round: layouts, then removals, then the deck
        if layouts is None:
            layouts = [random_layout(deal) for _ in range(self.n)]
        else:
            layouts = [list(map(list, layout)) for layout in layouts]  # the caller's lists stay theirs
        if captain is None:
            captain = rules.captain_of(self.first_captain, index, self.n)
        cards = rules.deck()
        self._unseen = rules.removed_unseen if unseen else 0
        if unseen and removed:
            raise IllegalMoveError(Refusal("unseen-removed", "an unseen deal names no removed cards"))
        if self._unseen:
            removed = []
        elif removed is None:
            removed = []
            if rules.removed_unseen:  # Surprises
                removed = deal.sample(sorted(cards), rules.removed_unseen)
        for code in removed:
            if code not in cards:
                raise IllegalMoveError(Refusal("removed-not-in-deck", f"removed card {flip_name(code)} is not in the draw deck",
                                               card=flip_name(code)))
            cards.remove(code)
        if deck is None:
            deck = sorted(cards)
            deck = shuffled(deck, deal)
        elif sorted(deck) != sorted(cards):
            raise IllegalMoveError(Refusal("deck-mismatch", "the recorded deck is not the round's draw deck"))
        self.rounds.append(RoundLog(captain, layouts, list(deck), list(removed)))
        self._turns = self.rounds[-1].turns  # the round's log, appended to every turn
        self._draw = list(reversed(deck))  # pop() takes the top
        self._pile: list[int] = []
        self._discard: tuple[int, ...] = ()  # a tuple: views share it as it is
        self._grids: list[dict[Cell, Stack]] = []
        self._tops: list[dict[Card, Cell]] = []
        for family, layout in zip(CARDS, layouts):
            cards = [family[n] for row in layout for n in row]
            self._grids.append({cell: (card,) for cell, card in zip(START_CELLS, cards)})
            self._tops.append(dict(zip(cards, START_CELLS)))
        self._grid_views: list[GridView | None] = [None] * self.n  # made when a view needs them
        self._start_play(index)
        self.phase = FLIP
        self._version += 1

    def _start_play(self, index: int) -> None:
        """The turn loop's state at a round's start (the round's rules, grids and decks are set)."""
        rules = self._round_rules
        self._mixed = rules.gifts  # cards may change hands (low blows): look tops up by scanning
        self._two_flips = rules.flips_per_turn == 2
        self._discards = rules.discards
        self._limit = rules.discard_limit(self.n)
        self._discards_end = TURN_CAP if self._limit is None else self._limit  # two-flips discards nothing
        self._turn_cap = TURN_CAP // rules.flips_per_turn  # the cap counts flips
        self._round_index, self._rounds, self._captain = index, self.rules.rounds(), self.rounds[-1].captain
        self._last_round = index + 1 == self._rounds
        self._round_facts = None  # named by the next view (rollouts never ask for one)
        self._history: tuple[Turn, ...] = ()
        self._previous: int | None = None  # what a Repeat would repeat (None: nothing)
        self._flips: tuple[int, ...] = ()
        self._call = Call("move")
        self._single = False  # some seat is down to one stack
        self._nobody = ((),) * self.n  # no seat has anything to move (read-only, shared)
        self._set_candidates(self._nobody)
        self._gifts: tuple[Move | None, ...] | None = None
        self._received: list[Stack | None] = [None] * self.n

    # --- reading the position -----------------------------------------------------------
    def grid(self, seat: int) -> MappingProxyType:
        """A read-only view of a seat's grid: cell -> stack (bottom -> top)."""
        return MappingProxyType(self._grids[seat])

    def stack_count(self, seat: int) -> int:
        return len(self._grids[seat])

    @property
    def draw_size(self) -> int:
        return len(self._draw) - self._unseen

    @property
    def pile(self) -> tuple[int, ...]:
        return tuple(self._pile)

    @property
    def discard(self) -> tuple[int, ...]:
        return self._discard

    @property
    def history(self) -> tuple[Turn, ...]:
        if len(self._history) != len(self._turns):  # made when asked: search copies never ask
            self._history = tuple(self._turns)
        return self._history

    @property
    def last_turn(self) -> Turn | None:
        return self._turns[-1] if self._turns else None

    @property
    def call(self) -> Call:
        return self._call

    @property
    def flips(self) -> tuple[int, ...]:
        return self._flips

    @property
    def turn_number(self) -> int:
        """Flips processed in this round (a turn under two flips counts once)."""
        return len(self._turns)

    @property
    def awaiting(self) -> tuple[int, ...]:
        """Seats that must choose before `play` (the others pass None)."""
        return self._awaiting

    def candidates(self, seat: int) -> tuple[tuple[Card, Cell], ...]:
        """The (card, cell) stacks this seat may move now; empty means Quack / nothing."""
        return self._candidates[seat] if self.phase in CHOOSING else ()

    def received(self, seat: int) -> Stack | None:
        """Low blows, PLACE phase: the stack this seat was given."""
        return self._received[seat] if self.phase is PLACE else None

    def legal_moves(self, seat: int) -> list[Move]:
        return legal_moves(self.phase, self._grids[seat], self.candidates(seat), self.received(seat))

    @property
    def totals(self) -> tuple[int, ...]:
        return self._totals

    @property
    def over(self) -> bool:
        return self.phase is GAME_OVER

    def table(self, index: int) -> tuple[tuple[MappingProxyType, ...], tuple[int, ...], tuple[int, ...]]:
        """Round `index`'s grids, Discard area and Captain pile: now, or as the round ended."""
        log = self.rounds[index]
        if index == self.round_index and log.outcome is None:
            grids, discard, pile = self._grids, self._discard, self._pile
        else:
            grids, discard, pile = log.end_grids, log.end_discard, log.end_pile
        return tuple(MappingProxyType(g) for g in grids), tuple(discard), tuple(pile)

    def outcome(self) -> GameOutcome | None:
        return game_outcome(self.rules, self.totals, self.results[-1].stacks) if self.over else None

    # --- the turn -----------------------------------------------------------------------
    def flip(self, code: int | None = None, second: int | None = None) -> Call:
        """The Captain flips (the given card(s) when replaying a record) and the call is set.

        A turn nobody can play (a Repeat with nothing to repeat, everybody quacking)
        resolves at once; the phase is then FLIP again or ROUND_OVER.
        """
        if self.phase is not FLIP:
            raise IllegalMoveError(Refusal("flip-not-now", f"cannot flip now: the game is in the {self.phase.value} phase"))
        if second is not None and not self._two_flips:
            raise IllegalMoveError(Refusal("second-flip", "only the two-flips variant flips two cards"))
        if self._two_flips:
            before = (list(self._draw), list(self._pile), len(self.round.reshuffles), self._unseen)
            try:
                self._flips = (self._draw_card(code), self._draw_card(second))
            except IllegalMoveError:  # a refused flip leaves the decks as they were
                self._draw, self._pile, self._unseen = before[0], before[1], before[3]
                del self.round.reshuffles[before[2]:]
                raise
            self._call = self._two_flip_call(*self._flips)
        else:
            draw = self._draw
            first = draw.pop() if code is None and draw and not self._unseen else self._draw_card(code)
            self._flips = (first,)
            self._call = self._one_flip_call(first)
        self._all_options()
        self.phase = GIFT if self._call is GIFT_CALL else MOVE
        self._version += 1
        if not self._awaiting:
            self._finish_turn((None,) * self.n)
        return self._call

    def _draw_card(self, code: int | None) -> int:
        if len(self._draw) <= self._unseen:
            self._reshuffle()
        draw = self._draw
        if code is None and self._unseen:
            raise IllegalMoveError(Refusal("flip-unnamed", "the deck holds unseen cards: a flip must name its card"))
        if code is None or draw[-1] == code:
            return draw.pop()
        # A record names the card; take the copy nearest the top, so that a resumed game
        # keeps the rest of the realized deck in its order.
        for index in range(len(draw) - 1, -1, -1):
            if draw[index] == code:
                del draw[index]
                return code
        raise IllegalMoveError(Refusal("flip-not-in-deck", f"flip {flip_name(code)} is not in the draw deck now",
                                       card=flip_name(code)))

    def _reshuffle(self) -> None:
        """An empty draw deck: the Captain pile is shuffled into a new one; the Discard area stays."""
        if not self._pile:
            raise IllegalMoveError(Refusal("no-cards-left", "the draw deck and the Captain pile are both empty"))
        new = shuffled(sorted(self._pile), _seed_rng(self.seed, self.round_index, "reshuffle", len(self.round.reshuffles) + 1))
        self.round.reshuffles.append(new)
        self._pile = []
        self._draw = list(reversed(new))
        self._unseen = 0  # the unseen cards were never in play: the new deck is the pile

    def _one_flip_call(self, code: int) -> Call:
        gift = self._mixed and code in (MAX, REPEAT)  # low blows
        called = self._previous = repeated(self._previous, code, gift)
        if gift:
            return GIFT_CALL
        return DEAD_CALL if called is None else SINGLE_CALLS[called]

    def _two_flip_call(self, first: int, second: int) -> Call:
        options = []
        for code in (first, second):
            code = self._previous = repeated(self._previous, code, gift=False)
            if code is not None and code not in options:
                options.append(code)
        return Call("move", tuple(options)) if options else DEAD_CALL

    def _all_options(self) -> None:
        """Set what each seat may move on the call just flipped (and so who must choose)."""
        cards = None if self._mixed else NUMBER_CALLS.get(self._call)
        if cards is not None:
            # The common case, kept lean: each seat's own card with the called number, if visible.
            found, awaiting = [], []
            seat = 0
            for card, tops in zip(cards, self._tops):
                cell = tops.get(card)
                if cell is None:
                    found.append(())
                else:
                    found.append(((card, cell),))
                    awaiting.append(seat)
                seat += 1
            self._candidates, self._awaiting = found, tuple(awaiting)
        elif self._call.options == (MAX,):  # Max alone: each seat's highest visible card(s)
            rules = self._round_rules
            self._set_candidates([tuple(highest(tops, rules)) for tops in self._tops])
        else:
            self._set_candidates([self._options(seat) for seat in range(self.n)])

    def _options(self, seat: int) -> tuple[tuple[Card, Cell], ...]:
        kind, options = self._call
        tops = self._tops[seat]
        if kind == "gift":
            return lowest_two(tops, self._round_rules)
        if kind == "dead":
            return ()
        found: list[tuple[Card, Cell]] = []
        for option in options:
            if option == MAX:
                found.extend(highest(tops, self._round_rules))
            elif self._mixed:
                found.extend((card, cell) for card, cell in tops.items() if card.number == option)
            else:
                card = CARDS[seat][option]
                cell = tops.get(card)
                if cell is not None:
                    found.append((card, cell))
        return tuple(dict.fromkeys(found))  # two flips may name one card twice

    def play(self, moves: Sequence[Move | None], *, trusted: bool = False) -> Turn | None:
        """Apply every seat's choice at once. Returns the finished turn (None after gifts).

        Each choice is checked against the position before any applies; the first illegal
        one raises IllegalMoveError naming its seat and nothing changes.

        `trusted` skips that check, for a search playing thousands of rollouts on its own
        copies (`clone`, `determinized`) with moves it built from this position's
        `candidates` / `legal_moves`: the same turn is applied the same way, only the
        re-checking of moves that are legal by construction is left out. Anything that comes
        from a player, a bot's answer or a record is never trusted.
        """
        if self.phase not in CHOOSING:
            raise IllegalMoveError(Refusal("move-not-now", f"nobody moves now: the game is in the {self.phase.value} phase"))
        if not trusted:
            self._check_all(moves)
        if self.phase is GIFT:
            self._give(moves)
            return None
        return self._finish_turn(tuple(moves))

    def _check_all(self, moves: Sequence[Move | None]) -> None:
        if len(moves) != self.n:
            raise IllegalMoveError(f"expected {self.n} moves, one per seat, got {len(moves)}")
        phase, grids, candidates, received, call = self.phase, self._grids, self._candidates, self._received, self._call
        for seat, move in enumerate(moves):
            if move is not None or candidates[seat]:  # a Quack needs no checking
                reason = illegal_reason(phase, grids[seat], candidates[seat], received[seat], move, call)
                if reason:
                    raise IllegalMoveError(reason, seat)

    def check(self, seat: int, move: Move | None) -> None:
        """Raise IllegalMoveError if `move` is not legal for `seat` now."""
        if self.phase not in CHOOSING:
            raise IllegalMoveError(Refusal("move-not-now", f"nobody moves now: the game is in the {self.phase.value} phase"), seat)
        self._check(seat, move)

    def _check(self, seat: int, move: Move | None) -> None:
        reason = illegal_reason(
            self.phase, self._grids[seat], self._candidates[seat], self._received[seat], move, self._call
        )
        if reason:
            raise IllegalMoveError(reason, seat)

    def _give(self, gifts: Sequence[Move]) -> None:
        """Low blows: every chosen duck leaves its grid with its stack, all at once."""
        for seat, gift in enumerate(gifts):
            grid = self._grids[seat].copy()
            cell = self._tops[seat][gift.card]
            self._received[(seat + 1) % self.n] = grid.pop(cell)
            self._set_grid(seat, grid)
        self._gifts = tuple(gifts)
        self.phase = PLACE
        self._version += 1
        self._set_candidates([((stack[-1], None),) for stack in self._received])  # type: ignore[index]

    def _finish_turn(self, moves: tuple[Move | None, ...]) -> Turn:
        placing = self.phase is PLACE
        movers = self._awaiting  # exactly the seats with a (checked) move: nobody may pass
        for seat in movers:
            self._move(seat, moves[seat], placing)
        discarded = not movers and self._discards
        if discarded:
            self._discard += self._flips
            self._previous = None  # a Repeat after a discarded card is discarded too
        else:
            self._pile.extend(self._flips)
        turn = _new_tuple(Turn, (self._flips, self._call, moves, self._gifts, discarded))
        self._turns.append(turn)
        self._gifts = None
        if placing:
            self._received = [None] * self.n
        self._candidates, self._awaiting = self._nobody, ()
        self.phase = FLIP
        if self._single or len(self._discard) >= self._discards_end or len(self._turns) >= self._turn_cap:
            self._end_round_if_over()  # the cheap test above keeps most turns out of the call
        self._version += 1
        return turn

    def _set_candidates(self, candidates: list[tuple[tuple[Card, Cell], ...]]) -> None:
        self._candidates = candidates
        self._awaiting = tuple(seat for seat, options in enumerate(candidates) if options)

    def _move(self, seat: int, move: Move, placing: bool) -> None:
        """Apply one seat's checked move to a fresh copy of its grid (copy-on-write)."""
        grid = self._grids[seat].copy()  # dict.copy clones; dict() re-inserts after a pop
        tops = self._tops[seat]  # private to the engine: changed in place
        to = move.to
        if placing:
            stack = self._received[seat]
        else:
            stack = grid.pop(tops[move.card])
        below = grid.get(to)
        if below:
            del tops[below[-1]]  # covered for good
            stack = below + stack
        grid[to] = stack
        tops[move.card] = to
        self._grids[seat] = grid
        self._grid_views[seat] = None
        if len(grid) == 1:
            self._single = True

    def _set_grid(self, seat: int, grid: dict[Cell, Stack]) -> None:
        self._grids[seat] = grid
        self._tops[seat] = {stack[-1]: cell for cell, stack in grid.items()}
        self._grid_views[seat] = None

    def _end_round_if_over(self) -> None:
        grids = self._grids
        singles = tuple(seat for seat, grid in enumerate(grids) if len(grid) == 1) if self._single else ()
        if singles:
            reason = SINGLE_STACK
        elif len(self._discard) >= self._discards_end:
            reason = DISCARD_LIMIT
        elif len(self._turns) >= self._turn_cap:
            reason = CAPPED
        else:
            return
        last, rules = self._last_round, self._round_rules
        scores = tuple(rules.round_score([rules.value(stack[-1].number) for stack in grid.values()], last) for grid in self._grids)
        outcome = RoundOutcome(reason, scores, tuple(len(g) for g in self._grids), singles)
        log = self.round
        log.outcome = outcome
        log.end_grids, log.end_discard, log.end_pile = tuple(self._grids), self._discard, tuple(self._pile)
        self.results.append(outcome)
        self._totals = tuple(total + score for total, score in zip(self._totals, scores))
        self._round_scores += (scores,)
        self._round_facts = None
        self.phase = GAME_OVER if last else ROUND_OVER

    # --- copies for search ---------------------------------------------------------------
    def clone(self) -> Game:
        """An independent copy of the game as it stands, cheap enough for thousands per decision.

        It shares what never changes (grids are copy-on-write, turns and views are immutable)
        and copies the few containers the engine changes in place. It knows everything the
        original knows, deck order included: a bot must only clone a `determinized` game.
        """
        copy = _new_object(Game)
        state = copy.__dict__
        state.update(self.__dict__)
        if self.rounds:
            current = _new_object(RoundLog)
            current.__dict__.update(self.rounds[-1].__dict__)
            current.reshuffles, current.turns = list(current.reshuffles), list(current.turns)
            state["rounds"] = [*self.rounds[:-1], current]
            state["_turns"] = current.turns
            state["_draw"] = list(self._draw)
            state["_pile"] = list(self._pile)
            state["_grids"] = list(self._grids)
            state["_tops"] = [tops.copy() for tops in self._tops]
            state["_received"] = list(self._received)
            state["_grid_views"] = list(self._grid_views)
        state["results"] = list(self.results)
        return copy

    @classmethod
    def determinized(cls, view: PlayerView, rng: random.Random) -> Game:
        """A game that looks to `view.seat` exactly like its view, the rest of this round to play.

        Only what that seat cannot see is invented: the draw deck's order, dealt at random
        (`rng`) from the captain cards the seat has not seen (under Surprises the two removed
        cards are among them), and the seed of any later reshuffle. The grids, the Captain
        pile, the Discard area, the call and the history are the view's. Search bots play
        their look-ahead on it with the engine's own flip/legal_moves/play. The phase is the
        view's (FLIP or MOVE/GIFT; the PLACE phase's gifts are not in a view, so not PLACE).
        """
        if view.phase not in (FLIP, MOVE, GIFT):
            raise RulesError(f"cannot determinize a view in the {view.phase.value} phase")
        rules = view.rules
        game = cls(view.names, rules, seed=rng.getrandbits(62), start=False)
        hidden, pile, previous = captain_cards(view)
        draw = shuffled(hidden, rng)[: view.draw_size]  # Surprises: two of the hidden cards are out
        index = view.round_index
        game.rounds = [RoundLog(view.captain, [], []) for _ in range(index + 1)]
        game.results = [RoundOutcome("", scores, (), ()) for scores in view.round_scores]
        game._totals, game._round_scores = view.totals, view.round_scores
        game._round_rules = rules
        log = game.rounds[-1]
        log.turns.extend(view.history)
        game._turns = log.turns
        game._draw, game._pile, game._discard = draw, pile, view.discard
        game._grids = [dict(grid.cells) for grid in view.grids]
        game._tops = [{stack[-1]: cell for cell, stack in grid.items()} for grid in game._grids]
        game._grid_views = [None] * game.n
        game._start_play(index)
        game._history, game._previous = view.history, previous  # view.history is log.turns as a tuple
        game._single = any(len(grid) == 1 for grid in game._grids)
        game.phase = view.phase
        game._flips, game._call = view.flips, view.call  # at FLIP: the last turn's, as the view shows
        if view.phase is not FLIP:
            game._all_options()
        game._version += 1
        return game

    # --- views --------------------------------------------------------------------------
    def view(self, seat: int) -> PlayerView:
        """What `seat` sees at the table now (see duckcover.engine.view.PlayerView)."""
        if self._turn_version != self._version:  # the turn's facts, once per state
            pile = self._pile
            grid_views = self._grid_views
            if None in grid_views:  # the grids changed since the last view
                for index, grid in enumerate(self._grids):
                    if grid_views[index] is None:
                        grid_views[index] = grid_view(grid)
            turns = self._turns
            if len(self._history) != len(turns):
                self._history = tuple(turns)
            self._turn_facts, self._turn_version = TurnFacts(
                phase=self.phase,
                call=self._call,
                flips=self._flips,
                grids=tuple(grid_views),
                captain_pile_top=pile[-1] if pile else None,
                discard=self._discard,
                draw_size=len(self._draw) - self._unseen,
                history=self._history,
            ), self._version
        if self._round_facts is None:
            self._name_round_facts()
        received = self._received[seat]  # a stack only in the PLACE phase
        # The order duckcover.engine.view checks at import: seat, the round's facts, the turn's, the seat's own.
        return _new_tuple(PlayerView, (
            seat, *self._round_facts, *self._turn_facts, self._candidates[seat],
            None if received is None else (received[-1], len(received)),
        ))

    def _name_round_facts(self) -> None:
        """What every view of this round shares (again once the round's scores are in)."""
        self._round_facts = RoundFacts(
            names=self.names,
            rules=self._round_rules,
            round_index=self._round_index,
            rounds=self._rounds,
            captain=self._captain,
            discard_limit=self._limit,
            totals=self._totals,
            round_scores=self._round_scores,
        )


# --- pure helpers shared by the engine and the views ----------------------------------------
def highest(tops: dict[Card, Cell], rules: Rules) -> list[tuple[Card, Cell]]:
    """Max: the visible card(s) with the highest number (or splashes); ties are the player's choice.

    Under Constraints, ducks 1-3 only move when carried, so Max never picks them (ruling);
    a player showing nothing but 1-3 does nothing on that Max. Ties come in reading order.
    """
    keys = rules.max_keys
    best, found = -1, []
    for card, cell in tops.items():
        key = keys[card.number]
        if key > best:
            best, found = key, [(card, cell)]
        elif key == best and key >= 0:
            found.append((card, cell))
    if len(found) > 1:
        found.sort(key=lambda item: (item[1][1], item[1][0]))
    return found


def repeated(previous: int | None, code: int, gift: bool) -> int | None:
    """The Repeat rule: what flipping `code` calls when `previous` is what a Repeat would repeat
    now, which is also what a Repeat after it repeats. A Repeat calls the card before it (None
    at a round's start or after a discarded flip: nothing); under low blows Max and Repeat are
    gifts (`gift`), and nothing repeats a gift. The engine flips by it; captain_cards follows it."""
    if gift:
        return None
    return previous if code == REPEAT else code


def captain_cards(view: PlayerView) -> tuple[list[int], list[int], int | None]:
    """What a seat knows of the captain cards, from its view alone.

    Returns the cards it has not seen (the draw deck's contents, sorted; under Surprises
    with the two removed cards among them), the Captain pile bottom to top, and what a
    Repeat would repeat now. Worked out from the round's public history, as a careful
    player would: the round's deck minus every flip since the last reshuffle.
    """
    rules = view.rules
    low_blows = rules.gifts
    deck = rules.deck()
    draw_left = len(deck) - rules.removed_unseen
    unseen = Counter(deck)
    pile: list[int] = []
    previous = None
    turns = [(turn.flips, turn.discarded) for turn in view.history]
    if view.phase in CHOOSING:
        turns.append((view.flips, None))  # flipped, not yet on the pile
    for flips, discarded in turns:
        for code in flips:
            if draw_left == 0:  # the engine rebuilds the draw deck from the pile before drawing
                unseen, pile, draw_left = Counter(pile), [], len(pile)
            draw_left -= 1
            unseen[code] -= 1
            previous = repeated(previous, code, gift=low_blows and code in (MAX, REPEAT))
        if discarded:
            previous = None  # a Repeat after a discarded card is discarded too
        elif discarded is False:
            pile.extend(flips)
    return sorted(unseen.elements()), pile, previous


def lowest_two(tops: dict[Card, Cell], rules: Rules) -> tuple[tuple[Card, Cell], ...]:
    """Low blows: the visible cards among the two lowest values (ties at the second value all count)."""
    values = sorted(rules.value(card.number) for card in tops)
    if len(values) < 2:
        return ()
    bar = values[1]
    chosen = [(card, cell) for card, cell in tops.items() if rules.value(card.number) <= bar]
    return tuple(sorted(chosen, key=lambda item: (item[1][1], item[1][0])))


def game_outcome(rules: Rules, totals: tuple[int, ...], last_stacks: tuple[int, ...]) -> GameOutcome:
    """Lowest total wins; a tie goes to the fewest visible cards at the end; else shared."""
    if rules.team:
        return GameOutcome(totals, tuple(range(len(totals))), "team")
    best = min(totals)
    tied = [seat for seat, total in enumerate(totals) if total == best]
    if len(tied) == 1:
        return GameOutcome(totals, tuple(tied), "score")
    fewest = min(last_stacks[seat] for seat in tied)
    winners = tuple(seat for seat in tied if last_stacks[seat] == fewest)
    return GameOutcome(totals, winners, "fewest-cards" if len(winners) == 1 else "shared")
