"""The turn controller: the words of a local table around the shared turn (players.table).

It is not a widget. The game's sequence is the one sequencer's (players/sequence.py), which the
table's flow (app/flow.py) hosts; bots are asked (in worker threads) through `decide`, humans
through the UI with `submit`. The turn itself (views built when the choice opened, private
choices, the joint move played only when all seats have chosen) is the `players.table.Table`
the server plays on too, so nobody (human or bot) ever sees another seat's choice before the
reveal; this class says what happens, in words, and is the bots' hooks (start_game,
start_round, observe) for the sequencer.

Bots play through the same Referee as in the arena (duckcover.players.safety): private views, every
hook of the contract, the cut-off, fallback moves, and a process of its own for a bot that
did not come with duckcover. The app calls `close()` when the game is left.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..common.i18n import t
from ..engine.cards import MAX, REPEAT
from ..engine.errors import IllegalMoveError
from ..engine.game import Game
from ..engine.moves import Move, Turn
from ..engine.view import PlayerView, turn_quacks
from ..players.table import NOTHING_TO_CHOOSE
from ..players.table import Table as Turns
from .options import SeatSpec
from ..common.telling import dead_repeat_words, discard_words, fallback_words, flip_words, gift_words, idle_words, move_words
from .words import flip_word, refusal_text

if TYPE_CHECKING:
    from ..players.bot import Bot
    from ..players.safety import Referee

# The record format, the bot harness and Madness's sounds are imported where they are used:
# none of them is needed before the first frame of the table.

_walls_told = False  # the missing walls are said once per run (TurnController._tell_missing_walls)


class TurnController:
    """A table the flow (app/flow.py) and the screen play at. This is the whole surface they
    use, so a table that lives elsewhere (on a server) implements the same:

    - `game`: the state shown (read only: names, n, captain, phase, grid(seat), totals,
      rules, pile, discard, draw_size, turn_number, round_index, history, last_turn,
      results, over) and `seats` (name, bot, sound per seat), `humans`, `is_human(seat)`;
    - the turn: `table` (the shared players.table.Table the sequencer plays on), `views`
      (seat -> the PlayerView it decides from), `decide(game, seats)` (in a worker),
      `humans_to_ask()`, `submit(seat, move)`, `load_errors` (lines to show); the bots'
      hooks `start_game`, `start_round`, `observe`;
    - words: `call_text()`, `flip_label()`, `flip_words(resolved)`, `quack_prompt(seat)`,
      `turn_lines(turn)`, `gift_lines(gifts)`; and `record()` for saving;
    - where a table elsewhere decides (app/remote.RemoteTable answers differently; the
      flow and the screen never ask which kind it has): `follows`, `attach(flow)`,
      `choice_opened()`, `flip_here()`, `round_may_start()`, `joined_lines()`,
      `status_line(width)`, `rating(seat)`, `settings_here`.
    """

    settings_here = True  # the settings file is this player's to change
    follows = False  # the flips, reveals and deals are this table's own (not a server's)
    flow = None  # the app.flow.TableFlow moving this game on now (one at a time)

    def __init__(self, game: Game, seats: Sequence[SeatSpec], bots: Sequence[Bot | None] | None = None,
                 loader: Callable[[str, int], Bot] | None = None, key: bytes | None = None,
                 named_bots: Sequence[str] = (), earlier_fallbacks: Sequence = ()):
        from ..players.harness import bot_key_for

        self.game = game
        self.seats = list(seats)
        # Bots load on first use, in the worker that asks them: finding installed bots scans
        # the package metadata, which the first frame of the table should not wait for.
        self.bots: list[Bot | None] = list(bots) if bots else [None] * game.n
        self.loader = loader
        # The secret the bots' coin flips come from: kept in the record, never in a view.
        self.key = key if key is not None else bot_key_for(game.seed)
        # Specs the player named on the command line: the only files or module paths that may
        # run. A saved game's labels run only as installed bots (they are text, not code).
        self.named_bots = frozenset(named_bots)
        self.load_errors: list[str] = []  # notices for the table (bots that cannot load or fail)
        # `is_human` through self: the remote table (app/remote.py) says which seat is here.
        self.table = Turns(game, is_human=lambda seat: self.is_human(seat), decide=self.decide)
        self.earlier_fallbacks = list(earlier_fallbacks)  # from the record of a resumed game
        self.explained: set[str] = set()  # what the log has explained once already
        self._referee: Referee | None = None
        self._closed = False
        self._early_hooks: list = []  # hooks called before the Referee exists: (hook, views, extra)
        self._told: set[tuple[int, str]] = set()  # (seat, what) notices already given
        self._fallback_seats: set[int] = set()  # seats whose move this turn was a fallback

    # --- who is who -------------------------------------------------------------------------
    @property
    def humans(self) -> list[int]:
        return [seat for seat, spec in enumerate(self.seats) if spec.human]

    def is_human(self, seat: int) -> bool:
        return self.seats[seat].human

    def bot_specs(self) -> list[str | None]:
        return [spec.bot for spec in self.seats]

    def record(self) -> dict:
        from ..players.safety import add_fallbacks
        from ..saves.record import to_record
        from .passplay import add_sounds

        from ..players.plugins import stamp_bot_versions

        record = add_sounds(to_record(self.game, bots=self.bot_specs()), self.seats, self.game.rules.own_sounds)
        stamp_bot_versions(record)  # the ratings tell a bot's versions apart
        record["bot_key"] = self.key.hex()
        return add_fallbacks(record, self.fallbacks)

    @property
    def fallbacks(self) -> list:
        """Every fallback move of the game: Fallback(seat, round, turn, reason)."""
        return self.earlier_fallbacks + (self._referee.fallbacks if self._referee else [])

    # --- a choice (the shared table's) ---------------------------------------------------------
    @property
    def views(self) -> dict[int, PlayerView]:
        """seat -> the view it decides from, fixed when the choice opened."""
        return self.table.views

    @property
    def chosen(self) -> dict[int, Move | None]:
        return self.table.chosen

    @chosen.setter
    def chosen(self, chosen: dict[int, Move | None]) -> None:
        self.table.chosen = chosen

    @property
    def before(self) -> list[dict]:
        """Every grid as the choice opened: what the log tells a move against."""
        return self.table.before

    def humans_to_ask(self) -> list[int]:
        return [seat for seat in self.views if self.is_human(seat) and seat not in self.chosen]

    def decide(self, game: Game, seats: Sequence[int]) -> dict[int, Move | None]:
        """The table's Decider: the bots' moves, asked in a worker thread (the host's runner)."""
        return self.decide_bots(seats)

    def decide_bots(self, seats: Sequence[int]) -> dict[int, Move | None]:
        """Runs in a worker thread: the Referee asks the bots; the game is read, never changed."""
        referee = self.referee()
        before = len(referee.fallbacks)
        moves = referee.decide(self.game, seats)
        self._fallback_seats.update(f.seat for f in referee.fallbacks[before:])
        self._tell_failures(referee)
        return {seat: moves[seat] for seat in seats}

    def referee(self) -> Referee:
        """The Referee of this table, made (and the bots loaded) on first use, in a worker."""
        if self._referee is None:
            from ..players.harness import constructor_seed
            from ..players.safety import Referee

            bots = [None if spec.human else (self.bots[seat] or self._load(seat, constructor_seed(self.key, seat)))
                    for seat, spec in enumerate(self.seats)]
            self.bots = bots
            referee = Referee(bots, key=self.key)
            for hook, views, extra in self._early_hooks:
                referee.queue(hook, views, extra)
            self._early_hooks = []
            self._referee = referee
        return self._referee

    def _load(self, seat: int, seed: int):
        """The seat's bot: the one its spec names if it may run here, else a medium bot (said once)."""
        from ..common.untrusted import textual_escaped as escaped
        from ..players.plugins import is_installed

        spec = self.seats[seat].bot or "medium"
        if not (is_installed(spec) or spec in self.named_bots):
            name = escaped(self.game.names[seat])
            self.load_errors.append(t("notify.bot_not_installed", spec=escaped(spec, 64), name=name))
            spec = "medium"
        if self.loader is None:
            from .bots import load_bot

            self.loader = load_bot
        try:
            bot = self.loader(spec, seed)
        except Exception as err:  # noqa: BLE001 - a missing or broken plugin must not stop the game
            self.load_errors.append(t("notify.bot_load", spec=escaped(spec, 64), error=escaped(err, 200)))
            return self.loader("medium", seed)
        self._tell_missing_walls(bot)
        return bot

    def _tell_missing_walls(self, bot) -> None:
        """Once per run of the app: which of the kernel's walls this system lacks around a bot
        in its own process (duckcover.players.confine), when one is missing."""
        global _walls_told
        walls = getattr(bot, "protections", None)  # a BotProcess's; a bot in this process has none
        if walls is None or walls.complete or _walls_told:
            return
        _walls_told = True
        missing = "; ".join(t(f"walls.{name}") for name in walls.missing)
        self.load_errors.append(t("notify.bots_unconfined", missing=missing))

    def _tell_failures(self, referee: Referee) -> None:
        """Once per bot: that it failed (and why), and what it printed, if it did. The notices are
        Textual markup (the table shows them with notify): what a bot or a record wrote is escaped."""
        from ..common.untrusted import textual_escaped as escaped

        names = self.game.names
        for seat, reason in list(referee.failures.items()):
            if (seat, "failed") not in self._told:
                self._told.add((seat, "failed"))
                self.load_errors.append(t("notify.bot_failed_named", name=escaped(names[seat]), reason=escaped(reason, 120)))
        for seat, spec in enumerate(self.seats):
            if not spec.human and (seat, "printed") not in self._told:
                printed = referee.output(seat)
                if printed:
                    self._told.add((seat, "printed"))
                    self.load_errors.append(t("notify.bot_printed", name=escaped(names[seat]), text=escaped(printed, 200)))

    # --- the bots' hooks ----------------------------------------------------------------------
    def _hook(self, hook: str, extra: tuple = ()) -> None:
        """Tell the bots (start_game, start_round, observe): they hear it before their next decision."""
        if self._referee is not None:
            self._referee.queue(hook, {seat: self.game.view(seat) for seat in range(self.game.n)}, extra)
        elif any(not spec.human for spec in self.seats):
            views = {seat: self.game.view(seat) for seat, spec in enumerate(self.seats) if not spec.human}
            self._early_hooks.append((hook, views, extra))

    # The sequencer's BotHooks: the bots hear of the game, each round and each turn.
    def start_game(self, game: Game) -> None:
        self._hook("start_game")

    def start_round(self, game: Game) -> None:
        self._hook("start_round")

    def observe(self, game: Game, turn: Turn) -> None:
        self._hook("observe", (turn,))
        if game.over:
            self.close()

    def close(self) -> None:
        """The game is left or over: the bots hear the last turn, then their processes end (in a
        thread of its own: a bot may take up to its cut-off to answer)."""
        referee = self._referee
        if referee is not None and not self._closed:
            import threading

            self._closed = True
            threading.Thread(target=referee.close, name="duckcover-bots-close", daemon=True).start()

    def submit(self, seat: int, move: Move | None) -> None:
        refused = self.table.choose(seat, move)
        if refused == NOTHING_TO_CHOOSE:
            raise IllegalMoveError(t("error.nothing_to_choose"), seat)
        if refused is not None:
            raise IllegalMoveError(self.refusal(seat, move), seat)

    def refusal(self, seat: int, move: Move | None) -> str:
        """Why the rules refuse `move`, in the player's language."""
        err = self.table.refusal(seat, move)
        return t("error.illegal_move_because", reason=refusal_text(err.reason)) if err else t("error.illegal_move")

    def fallback_lines(self) -> list[str]:
        """One line per bot whose move this turn the Referee made (the log marks each one)."""
        seats, self._fallback_seats = sorted(self._fallback_seats), set()
        return [fallback_words(self.game.names[seat]) for seat in seats]

    # --- where a table elsewhere decides: here, at once --------------------------------------
    def attach(self, flow) -> None:
        """The flow that moves this table on has started (a local table needs nothing of it)."""

    def choice_opened(self) -> None:
        """A choice has opened (a table elsewhere marks who had chosen before it was shown)."""

    def flip_here(self) -> bool:
        """Whether a Captain's flip typed here is played here (a table elsewhere sends it)."""
        return True

    def round_may_start(self) -> bool:
        """Whether the next round may be dealt as the scorepad closes."""
        return True

    def joined_lines(self) -> list[str]:
        """Lines for the log after its opening line (a guest back mid-turn hears what was chosen for her)."""
        return []

    def status_line(self, width: int) -> str | None:
        """A line under the prompt, at most `width` (who has chosen, the time left), or None for no line at all."""
        return None

    def rating(self, seat: int) -> str | None:
        """A seat's rating, shown beside who plays it, or None."""
        return None

    # --- words ------------------------------------------------------------------------------
    def quack_word(self, seat: int) -> str:
        if self.game.round_rules.own_sounds:  # Madness
            from .passplay import seat_sounds

            return seat_sounds(self.seats)[seat]  # each seat its own animal (pass-and-play: chosen)
        return t("word.quack")

    def quacking_humans(self) -> list[int]:
        """Human seats that quack this turn: the call names a card of theirs that is covered
        (the view says so: PlayerView.must_quack is the one statement of that rule)."""
        return [seat for seat in self.humans if self.game.view(seat).must_quack]

    def quack_prompt(self, main_seat: int) -> str | None:
        """The prompt while humans quack (None: nobody at the keyboard does). With several
        humans at one keyboard, each who quacks is named, not just the one on screen."""
        quacking = self.quacking_humans()
        if len(self.humans) > 1:
            names = self.game.names
            return " ".join(t("prompt.quack_named", name=names[s], quack=self.quack_word(s)) for s in quacking) or None
        return t("prompt.quack", quack=self.quack_word(main_seat)) if main_seat in quacking else None

    def gift_lines(self, gifts: Sequence[Move | None]) -> list[str]:
        names = self.game.names
        return [gift_words(names[seat], str(gift.card.number), names[(seat + 1) % len(names)])
                for seat, gift in enumerate(gifts) if gift is not None]

    def turn_lines(self, turn: Turn) -> list[str]:
        game = self.game
        if turn.call.kind == "dead":
            return [dead_repeat_words()]
        lines = []
        placing = turn.gifts is not None
        quacks = turn_quacks(turn, game.round_rules)
        for seat, move in enumerate(turn.moves):
            name = game.names[seat]
            if move is None:
                lines.append(idle_words(name, self.quack_word(seat) if quacks[seat] else None))
            else:
                lines.append(move_words(name, self.before[seat], move, placing))
        if turn.discarded:
            lines.append(discard_words(len(game.discard), game.round_rules.discard_limit(game.n)))
        return lines

    def flip_words(self, resolved: bool) -> tuple[str, str]:
        """The log's line for the flip just made, and what it means ("" if nothing to say)."""
        game = self.game
        before = game.turn_number - (1 if resolved else 0)
        explain = self.explain_flip(before)
        if resolved and game.last_turn is not None and game.last_turn.call.kind == "dead":
            explain = None  # the turn's own line says what a dead Repeat does: once is enough
        return self.flip_line(before), explain or ""

    def flip_line(self, turns_before: int) -> str:
        """The log's line for the card just flipped (and who flipped it)."""
        game = self.game
        return flip_words(game.round_index + 1, turns_before + 1, self.flip_label(), game.names[game.captain])

    def waiting_prompt(self) -> str:
        """While the choices are being made: nobody waits for "the others" when every seat is a bot."""
        return t("prompt.waiting") if self.humans else t("prompt.choosing")

    def call_text(self) -> str:
        """The current call in words, for the big display."""
        call = self.game.call
        if call.kind == "gift":
            return t("call.gift")
        if call.kind == "dead":
            return t("word.repeat")
        return " / ".join(t("word.max") if o == MAX else str(o) for o in call.options)

    def explain_flip(self, turns_before: int) -> str | None:
        """Max and Repeat say what they mean when they appear (with Repeat's special cases)."""
        game = self.game
        flips, call = game.flips, game.call
        if call.kind == "gift":
            return t("explain.gift")
        if call.kind == "dead" and len(flips) == 1:  # Repeat's special cases (two flips have none)
            return t("explain.repeat_first") if turns_before == 0 else t("explain.repeat_discarded")
        parts = []
        if REPEAT in flips:
            again = [o for o in call.options]
            what = t("word.max") if again and again[-1] == MAX else (str(again[-1]) if again else "-")
            # Explained in full the first time; after that the log only says what is called again.
            parts.append(t("explain.repeat_short" if "repeat" in self.explained else "explain.repeat", call=what))
            self.explained.add("repeat")
        if MAX in flips or (call.kind == "move" and MAX in call.options):
            parts.append(t("explain.max_splashes") if game.rules.max_by == "splashes" else t("explain.max"))
        if len(call.options) > 1:  # two flips: a choice between two ducks
            parts.append(t("explain.two_flips"))
        return " ".join(parts) or None

    def flip_label(self) -> str:
        labels = []
        for code in self.game.flips:
            labels.append(flip_word(code))
        return " + ".join(labels)
