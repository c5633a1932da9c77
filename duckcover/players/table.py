"""The turn, once: gather every seat's choice in private, then reveal them together.

Local play, pass-and-play, the watch mode and the server all play their turns through one
`Table`. It owns the views fixed when a choice opens (every seat decides from the table as it
was before anyone's move), the private choices, readiness, the resolve (the joint move applied
to the engine), and the fallbacks: a seat whose time ran out gets the stand-in move, a human
seat a bot plays while its player is away is marked as such. Whoever shows the table (a
Textual screen, a server broadcasting to clients) listens to its events.

How bots are run is a parameter: `decide(game, seats)` answers for some seats (a Referee, in
this process or in a sandboxed one), and `run(work, done)` decides where that work happens:
at once (`run_inline`), in a thread, or in an asyncio executor. Time limits belong to the host
(its clock): it calls `time_up()` when a choice's time is over.

Nothing here imports the app or the network: only the engine and the referee.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..engine.errors import IllegalMoveError
from ..engine.game import CHOOSING, GIFT, Game
from ..engine.moves import Move, Turn
from ..engine.view import PlayerView
from .events import BY_PLAYER, BY_STANDIN, BY_TIME, ChoiceOpened, Chosen, Flipped, Revealed  # noqa: F401 - re-exported
from .events import TableEvent as Event

T = TypeVar("T")
Runner = Callable[[Callable[[], Any], Callable[[Any], None]], None]
Decider = Callable[[Game, list[int]], Sequence]  # moves indexed by seat (a list or a dict)

NOTHING_TO_CHOOSE = "nothing"  # refusals `choose` returns (the host says them in its own words)
NOT_LEGAL = "illegal"


def run_inline(work: Callable[[], T], done: Callable[[T], None]) -> None:
    """Bots decide at once, in the caller's thread (tests, scripts, the arena's way)."""
    done(work())


class Table:
    """One game's turns. `is_human(seat)`: the seat has a player (not a bot) of its own;
    `bot_plays(seat)`: a bot decides for it now (by default the bot seats; a server adds the
    human seats whose player has been away too long)."""

    def __init__(self, game: Game, *, is_human: Callable[[int], bool],
                 bot_plays: Callable[[int], bool] | None = None, decide: Decider | None = None,
                 run: Runner = run_inline, seat_by_seat: bool = False, keep_views: bool = True) -> None:
        self.game = game
        self.is_human = is_human
        self.bot_plays = bot_plays or (lambda seat: not is_human(seat))
        self.decide = decide
        self.run = run
        self.seat_by_seat = seat_by_seat  # each bot asked on its own: a slow one holds up nobody else
        # False: nobody reads the views or the grids before the moves (the arena's trusted bots
        # build their own views): a choice opens with its seats only, at no cost.
        self.keep_views = keep_views
        self.views: dict[int, PlayerView] = {}
        self.chosen: dict[int, Move | None] = {}  # never shown to anyone before the reveal
        self.before: list[dict] = []  # every grid as the choice opened (what a move is told against)
        self.number = 0
        self.gifts: list | None = None  # low blows: the gifts given, until the placing resolves
        self.standins: list[tuple[int, int, int]] = []  # (seat, round, turn) a bot chose for
        self.timeouts: list[tuple[int, int, int]] = []  # (seat, round, turn) the time ran out for
        # Events are built only when someone listens: the arena's games have nobody, and an
        # event costs more than a cheap bot's decision.
        self.listeners: list[Callable[[Event], None]] = []
        # Called when the last seat has chosen, after its `Chosen` is told (the sequencer
        # reveals then): a direct call, so that a table nobody listens to builds no events.
        self.when_all_chosen: Callable[[], Any] | None = None

    # --- who listens --------------------------------------------------------------------------
    def listen(self, listener: Callable[[Event], None]) -> None:
        self.listeners.append(listener)

    def emit(self, event: Event) -> None:
        for listener in self.listeners:  # (set up before the game, never during an event)
            listener(event)

    # --- the turn -----------------------------------------------------------------------------
    def flip(self, *codes: int | None) -> bool:
        """The Captain flips (the cards named: a mirror of a table elsewhere). True when the turn
        resolved at the flip (nobody could play)."""
        game = self.game
        game.flip(*codes) if codes else game.flip()  # (no star call for a bot's flip: 3.11's slow path)
        resolved = game.phase not in CHOOSING
        if self.listeners:
            self.emit(Flipped(tuple(game.flips), resolved))
        return resolved

    def open_choice(self) -> None:
        """Fix the views every choosing seat decides from, before anyone's move applies."""
        game = self.game
        if self.keep_views:
            self.views = {seat: game.view(seat) for seat in game.awaiting}
            self.before = [dict(game.grid(seat)) for seat in range(game.n)]
        else:
            self.views = dict.fromkeys(game.awaiting)
        self.chosen = {}
        self.number += 1
        if self.listeners:
            self.emit(ChoiceOpened(self.number, tuple(self.views)))

    def waiting(self) -> list[int]:
        """The seats still to choose."""
        return [seat for seat in self.views if seat not in self.chosen]

    def ready(self) -> bool:
        return bool(self.views) and self.views.keys() <= self.chosen.keys()

    def choose(self, seat: int, move: Move | None, *, checked: bool = False, by: str = BY_PLAYER,
               over_standin: bool = False) -> str | None:
        """A seat's choice, kept private: None, or why it is refused (NOTHING_TO_CHOOSE, NOT_LEGAL).
        `over_standin`: the seat's player, back while the choice is still open, replaces the
        move a stand-in bot chose for him (it is then no longer marked as the stand-in's)."""
        view = self.views.get(seat)
        replacing = over_standin and seat in self.chosen and self.standin_chose(seat)
        if seat not in self.views or (seat in self.chosen and not replacing):
            return NOTHING_TO_CHOOSE
        if not checked and not view.is_legal(move):
            return NOT_LEGAL
        if replacing:
            self.standins.remove(self.standin_mark(seat))
        self.chosen[seat] = move
        if self.listeners:
            self.emit(Chosen(seat, by))
        if self.when_all_chosen is not None and self.views.keys() <= self.chosen.keys():  # (ready())
            self.when_all_chosen()
        return None

    def standin_mark(self, seat: int) -> tuple[int, int, int]:
        return (seat, self.game.round_index, self.game.turn_number)

    def standin_chose(self, seat: int) -> bool:
        """Whether the seat's move in the open choice is a stand-in bot's."""
        return seat in self.chosen and self.standin_mark(seat) in self.standins

    def refusal(self, seat: int, move: Move | None) -> IllegalMoveError | None:
        """Why the rules refuse `move` for `seat` (the engine's own error), or None."""
        try:
            self.game.check(seat, move)
        except IllegalMoveError as err:
            return err
        return None

    # --- bots -----------------------------------------------------------------------------------
    def bots_to_ask(self) -> list[int]:
        chosen, bot_plays = self.chosen, self.bot_plays
        return [seat for seat in self.views if seat not in chosen and bot_plays(seat)]  # (waiting(), a bot's)

    def ask_bots(self, seats: Sequence[int] | None = None) -> None:
        """Ask the bots for `seats` (default: every seat a bot plays that has not chosen) through
        `run`; their answers count only while this choice is still open."""
        seats = self.bots_to_ask() if seats is None else list(seats)
        if not seats or self.decide is None:
            return
        number, game, decide = self.number, self.game, self.decide
        for group in ([[seat] for seat in seats] if self.seat_by_seat else [seats]):
            if self.run is run_inline:  # (the same, without two closures a turn: the arena's way)
                self.answer(number, group, decide(game, group))
            else:
                self.run(lambda group=group: decide(game, group),
                         lambda moves, group=group: self.answer(number, group, moves))

    def answer(self, number: int, seats: Sequence[int], moves: Sequence) -> None:
        """Bots' moves for `seats` (indexed by seat), for the choice `number`. A human seat's move
        made by a bot is a stand-in's, and marked so."""
        if number != self.number:
            return  # an answer for a choice already over
        for seat in seats:
            if seat in self.chosen or seat not in self.views:
                continue
            by = BY_PLAYER
            if self.is_human(seat):  # the player is away: the log and the record say so
                self.standins.append(self.standin_mark(seat))
                by = BY_STANDIN
            # As choose(seat, move, checked=True, by=by) would, without its calls (the arena's
            # hot path): the engine checks the move at the reveal.
            self.chosen[seat] = moves[seat]
            if self.listeners:
                self.emit(Chosen(seat, by))
        if self.when_all_chosen is not None and self.views.keys() <= self.chosen.keys():  # (once, every answer in)
            self.when_all_chosen()

    def time_up(self) -> None:
        """The choice's time is over: every seat a human still owes gets the fallback move."""
        from .safety import fallback_move

        game = self.game
        for seat in [s for s in self.waiting() if not self.bot_plays(s)]:
            self.timeouts.append((seat, game.round_index, game.turn_number))
            self.choose(seat, fallback_move(game, seat), checked=True, by=BY_TIME)

    # --- the reveal -----------------------------------------------------------------------------
    def resolve(self) -> Turn | None:
        """Play the joint move: the turn played, or None after low-blows gifts (the reveal has no
        turn then: placing follows)."""
        game = self.game
        phase = game.phase
        chosen = self.chosen
        moves = list(map(chosen.get, range(game.n)))
        standins = self._standins_now() if self.listeners and self.standins else []
        turn = game.play(moves)  # (None after the gifts)
        self.views, self.chosen = {}, {}
        self.gifts = moves if phase is GIFT else None
        if self.listeners:
            self.emit(Revealed(moves, turn, phase, standins))
        return turn

    def _standins_now(self) -> list[int]:
        """The seats whose move in the open choice a stand-in bot chose."""
        now = (self.game.round_index, self.game.turn_number)
        return sorted(seat for seat, r, n in self.standins if (r, n) == now)
