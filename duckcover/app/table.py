"""The table: every grid, the middle of the table, the log, and the turn flow."""
from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import RichLog, Static
from textual.worker import Worker, WorkerState

from ..errors import IllegalMoveError
from ..game import CHOOSING, Phase
from ..i18n import t
from ..moves import Move
from .controller import Reveal, TurnController
from .options import FLIP_PAUSE, REVEAL_PAUSE, AppOptions
from .widgets import GridWidget, KeyBar
from .words import bot_label, flip_word, variant_label

SMALL_WIDTH, SMALL_HEIGHT = 110, 34  # below this, the compact layout


class SeatPanel(Vertical):
    """A player's name line and grid."""

    def __init__(self, seat: int, large: bool, **kwargs) -> None:
        super().__init__(**kwargs)
        self.seat = seat
        self.title = Static(classes="seat-title")
        self.grid = GridWidget(seat, large=large, focusable=large, narrow=not large,
                               id="own-grid" if large else None)

    def compose(self) -> ComposeResult:
        yield self.title
        yield self.grid


class TableScreen(Screen):
    """One game at the table. The flow: flip -> choices -> reveal -> (round end) -> flip ..."""

    AUTO_FOCUS = "#own-grid"

    def __init__(self, controller: TurnController, options: AppOptions, earlier: Sequence[str] = ()) -> None:
        super().__init__()
        self.ctl = controller
        self.options = options
        self.earlier = list(earlier)  # a resumed game: its story so far, for the log
        self.state = "idle"  # await-flip, choosing, waiting, pause, round-over, game-over
        self.chooser: int | None = None  # the human seat choosing now
        self.stage = ""  # pick, dest, gift, place
        self.picked = None  # (card, origin) being moved
        self.token = 0  # bumps per choice, so a stale worker's answer is ignored
        humans = controller.humans
        self.main_seat = humans[0] if humans else 0
        self.prompt_text = ""
        self._shown: dict = {}
        self.log_lines: list[str] = []
        self._bindings_key = None
        self._bindings.bind("space,f", "flip", t("key.flip"))
        self._bindings.bind("t", "hint", t("key.hint"))
        self._bindings.bind("o", "settings", t("key.settings"), show=False)  # listed in the help
        self._bindings.bind("escape", "back", t("key.back"))
        self._bindings.bind("pageup", "log_scroll(-1)", show=False)
        self._bindings.bind("pagedown", "log_scroll(1)", show=False)

    # --- layout -------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        # The layout is chosen before any widget exists, so each is styled once (a class set
        # on the screen later restyles every widget on it).
        self.set_class(self.is_small(), "-small")
        yield Static(id="status")
        with Horizontal(id="top"):
            with VerticalScroll(id="opponents"):
                for seat in self.seat_order()[1:]:
                    yield SeatPanel(seat, large=False, classes="opponent")
            with VerticalScroll(id="middle"):
                yield Static(id="call")
                yield Static(id="explain")
                yield Static(id="table-info")
                yield Static(id="totals")
        with Horizontal(id="bottom"):
            with VerticalScroll(id="mine"):
                yield SeatPanel(self.main_seat, large=True, id="own-panel")
                yield Static(id="prompt")
            yield RichLog(id="log", wrap=True, markup=False, highlight=False, max_lines=2000, min_width=16)
        yield KeyBar()

    def seat_order(self) -> list[int]:
        n = self.ctl.game.n
        return [(self.main_seat + i) % n for i in range(n)]

    def on_mount(self) -> None:
        self.query_one("#log", RichLog).can_focus = False
        self.apply_size()
        self.begin()  # the first frame is already interactive

    def on_screen_suspend(self) -> None:
        # A scorepad or the game-over screen now covers the table, and a covered screen gets
        # no refresh of its own: pin the log to its last line as it stands behind the modal.
        self.query_one("#log", RichLog).scroll_end(animate=False, immediate=True, x_axis=False)

    def begin(self) -> None:
        game = self.ctl.game
        for line in self.earlier:
            self.log_line(line)
        if game.turn_number:  # a resumed game
            self.log_line(t("log.resumed", round=game.round_index + 1, turn=game.turn_number), bold=True)
        else:
            self.log_line(t("log.round_start", round=game.round_index + 1), bold=True)
        self.refresh_table()
        self.advance()

    def on_resize(self) -> None:
        self.apply_size()

    def is_small(self) -> bool:
        return self.app.size.width < SMALL_WIDTH or self.app.size.height < SMALL_HEIGHT

    def apply_size(self) -> None:
        small = self.is_small()
        if small != self.has_class("-small"):
            self.set_class(small, "-small")
            self.put("#status", self.status_text())
        own = self.query_one("#own-panel", SeatPanel).grid
        rows = own.bounds()[3] - own.bounds()[1] + 1
        own.set_large(not small and rows <= 5)

    # --- drawing ------------------------------------------------------------------------
    def refresh_table(self) -> None:
        game = self.ctl.game
        splashes = game.rules.splashes
        for panel in self.query(SeatPanel):
            seat = panel.seat
            marks, cursor = ({}, None)
            if seat == self.chooser and panel.id == "own-panel":
                marks, cursor = self.marks_for_choice()
            if panel.grid.cursor in marks and marks[panel.grid.cursor] != "called":
                cursor = panel.grid.cursor  # keep the player's cursor across refreshes
            panel.grid.show(self.grid_of(seat), splashes, marks, cursor)
            title = self.seat_title(seat)
            if self._shown.get(("title", seat)) != title.markup:
                self._shown[("title", seat)] = title.markup
                panel.title.update(title)
            if panel.has_class("-captain") != (seat == game.captain):
                panel.set_class(seat == game.captain, "-captain")
        self.put("#status", self.status_text())
        self.put("#call", self.call_display())
        self.put("#table-info", self.table_info())
        self.put("#totals", self.totals_text())
        self.put("#prompt", self.prompt_text)
        self.update_bindings()

    def update_bindings(self) -> None:
        """Refresh the footer only when what the keys can do has changed."""
        key = (self.state == "await-flip", self.check_action("back", ()), self.check_action("hint", ()))
        if key != self._bindings_key:
            self._bindings_key = key
            self.refresh_bindings()

    def put(self, selector: str, content) -> None:
        """Update a Static only when its content changed (an update costs a layout pass)."""
        key = content.markup if isinstance(content, Text) else content
        if self._shown.get(selector) != key:
            self._shown[selector] = key
            widget = self.query_one(selector, Static)
            widget.update(content)
            if selector == "#explain":
                widget.display = bool(key)  # no empty line in the middle of the table

    def grid_of(self, seat: int):
        """What the table shows of a seat: while it chooses, its grid before any move applies."""
        ctl = self.ctl
        if ctl.views and seat in ctl.views and seat == self.chooser:
            return ctl.views[seat].grid.cells
        return ctl.game.grid(seat)

    def seat_title(self, seat: int) -> Text:
        game = self.ctl.game
        text = Text()
        text.append(game.names[seat], style="bold")
        spec = self.ctl.seats[seat]
        text.append(f" ({bot_label(spec.bot)})" if spec.bot else f" ({t('seat.human')})", style="dim")
        if seat == game.captain:
            text.append(f" [{t('word.captain')}]", style="bold yellow")
        text.append(" " + t("table.stacks", count=game.stack_count(seat)))
        text.append(", " + t("table.total", total=game.totals[seat]))
        return text

    def status_text(self) -> Text:
        game = self.ctl.game
        text = Text()
        small = self.has_class("-small")
        if small:  # the middle of the table folds into the status lines
            text.append(" " + self.call_display().plain + " ", style="bold reverse")
            text.append("  ")
        else:
            text.append(t("app.title"), style="bold")
        text.append("  " + t("table.round", round=game.round_index + 1, rounds=game.rules.rounds()))
        text.append("  " + t("table.flip_no", turn=game.turn_number + (1 if game.phase in CHOOSING else 0)))
        text.append("  " + t("table.captain_is", name=game.names[game.captain]))
        variants = sorted(game.rules.variants)
        if variants:
            text.append("  [" + ", ".join(variant_label(v) for v in variants) + "]", style="dim")
        if small:
            pile, discard = game.pile, game.discard
            limit = game.rules.discard_limit(game.n)
            text.append("\n" + t("table.short", draw=game.draw_size, pile=flip_word(pile[-1]) if pile else "-",
                                  cards=" ".join(flip_word(c) for c in discard) or "-"))
            if limit is not None:
                text.append(" | " + t("table.discard_count", count=len(discard), more=max(0, limit - len(discard))),
                            style="bold")
        return text

    def call_display(self) -> Text:
        game = self.ctl.game
        if game.phase in CHOOSING or (game.history and game.phase is Phase.FLIP and self.state == "pause"):
            label = self.ctl.call_text() if game.phase in CHOOSING else self.last_call_text()
        else:
            label = "-"
        return Text(f"{t('table.call')}: {label}", style="bold", justify="center")

    def last_call_text(self) -> str:
        turn = self.ctl.game.last_turn
        if turn is None:
            return "-"
        return " + ".join(flip_word(code) for code in turn.flips)

    def table_info(self) -> Text:
        game = self.ctl.game
        text = Text()
        text.append(t("table.captain_is", name=game.names[game.captain]) + "\n")
        text.append(t("table.draw", count=game.draw_size) + "\n")
        pile = game.pile
        text.append(t("table.pile_top", card=flip_word(pile[-1]) if pile else "-") + "\n")
        discard = game.discard
        text.append(t("table.discard", cards=" ".join(flip_word(c) for c in discard) or "-") + "\n")
        limit = game.rules.discard_limit(game.n)
        if limit is not None:
            text.append(t("table.discard_count", count=len(discard), more=max(0, limit - len(discard))), style="bold")
        return text

    def totals_text(self) -> Text:
        game = self.ctl.game
        text = Text(t("table.totals") + "\n", style="bold")
        for seat, name in enumerate(game.names):
            text.append(f"{name[:14]:<14} {game.totals[seat]:>4}\n", style="bold" if seat == self.main_seat else "")
        return text

    def log_line(self, line: str | Text, bold: bool = False) -> None:
        self.log_lines.append(str(line))  # plain text, for anyone who reads the log back (tests too)
        log = self.query_one("#log", RichLog)
        # scroll_end=True: a line written before the log has a size is only laid out on its
        # first resize (a resumed game writes its story then), and must scroll it there.
        log.write(Text(line, style="bold") if isinstance(line, str) and bold else line, scroll_end=True)
        # And scroll now, not only after the next refresh: a scorepad pushed right after must
        # find the log at its last line (and screenshots must not depend on callback order).
        log.scroll_end(animate=False, immediate=True, x_axis=False)

    def set_prompt(self, text: str) -> None:
        explain = self._shown.get("#explain")
        if explain and self.has_class("-small") and self.ctl.game.phase in CHOOSING:
            text = f"{explain}\n{text}"  # the middle of the table is folded away: say it here
        self.prompt_text = text
        self.put("#prompt", text)

    # --- the flow -----------------------------------------------------------------------
    def later(self, callback, delay: float) -> None:
        """Pace the game; at speed instant, no timers at all."""
        if delay <= 0:
            self.call_later(callback)
        else:
            self.set_timer(delay, callback)

    def advance(self) -> None:
        game = self.ctl.game
        if self.state in ("round-over", "game-over"):
            return
        if game.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
            self.show_round_end()
            return
        if game.phase is Phase.FLIP:
            if self.ctl.is_human(game.captain) and not self.options.watch:
                self.state = "await-flip"
                self.set_main_seat(game.captain)
                self.refresh_table()
                self.set_prompt(t("prompt.flip_named", name=game.names[game.captain])
                                if len(self.ctl.humans) > 1 else t("prompt.flip"))
                self.update_bindings()
            else:
                self.state = "flipping"
                self.set_prompt(t("prompt.captain_flips", name=game.names[game.captain]))
                self.later(self.do_flip, FLIP_PAUSE[self.options.speed])
            return
        self.start_choice()

    def action_flip(self) -> None:
        if self.state == "await-flip":
            self.do_flip()

    def do_flip(self) -> None:
        game = self.ctl.game
        if game.phase is not Phase.FLIP or not self.is_attached:
            return
        before = game.turn_number
        self.ctl.flip()
        self.log_line(self.ctl.flip_line(before), bold=True)
        explain = self.ctl.explain_flip(before)
        self.put("#explain", explain or "")
        if explain:
            self.log_line(explain)
        if game.phase in CHOOSING:
            self.start_choice()
        else:  # nobody could play: the turn resolved at the flip
            self.finish_turn(Reveal(self.ctl.turn_lines(game.last_turn), game.last_turn))

    def start_choice(self) -> None:
        ctl = self.ctl
        ctl.open_choice()
        self.token += 1
        self.state = "choosing"
        bots = ctl.bot_seats()
        if bots:
            self.run_worker(lambda: ctl.decide_bots(bots), name=f"bots-{self.token}", group="bots",
                            thread=True, exit_on_error=False)
        self.next_human()

    def next_human(self) -> None:
        pending = self.ctl.humans_to_ask() if not self.options.watch else []
        if pending:
            if self.pass_and_play():
                self.hand_over(pending[0])
            else:
                self.begin_human(pending[0])
            return
        self.chooser = None
        self.stage = ""
        quack = None if self.options.watch else self.ctl.quack_prompt(self.main_seat)
        self.set_prompt(quack or self.ctl.waiting_prompt())
        self.state = "waiting"
        self.refresh_table()
        self.maybe_resolve()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group != "bots" or worker.name != f"bots-{self.token}":
            return
        while self.ctl.load_errors:
            self.app.notify(self.ctl.load_errors.pop(0), severity="error")
        if event.state is WorkerState.SUCCESS:
            for seat, move in worker.result.items():
                self.ctl.chosen[seat] = move
            self.maybe_resolve()
        elif event.state is WorkerState.ERROR:
            self.app.notify(t("notify.bot_failed"), severity="error")

    def maybe_resolve(self) -> None:
        if self.state == "waiting" and self.ctl.ready():
            self.state = "resolving"
            reveal = self.ctl.resolve()
            if reveal.turn is None:  # low blows: the gifts are out, now everyone places
                for line in reveal.lines:
                    self.log_line(line)
                self.start_choice()
                return
            self.finish_turn(reveal)

    def finish_turn(self, reveal: Reveal) -> None:
        for line in reveal.lines:
            self.log_line("  " + line)
        self.chooser = None
        self.state = "pause"
        self.app.save_game()
        self.refresh_table()
        self.apply_size()
        self.later(self.after_pause, REVEAL_PAUSE[self.options.speed])

    def after_pause(self) -> None:
        if self.state == "pause" and self.is_attached:
            self.state = "idle"
            self.advance()

    def show_round_end(self) -> None:
        from .screens import RoundEndScreen

        game = self.ctl.game
        self.state = "round-over"
        self.set_prompt("")
        self.refresh_table()
        outcome = game.results[-1]
        self.log_line(t("log.round_end", round=len(game.results), reason=t(f"reason.{outcome.reason}")), bold=True)
        # After the refresh, so the table behind the scorepad shows the round's last line.
        self.call_after_refresh(self.app.push_screen, RoundEndScreen(self.ctl, auto=self.options.watch),
                                self.after_round_end)

    def after_round_end(self, _result=None) -> None:
        game = self.ctl.game
        if game.over:
            from .screens import GameOverScreen

            self.state = "game-over"
            self.app.push_screen(GameOverScreen(self.ctl))
            return
        game.start_round()
        self.app.save_game()
        self.state = "idle"
        self.log_line(t("log.round_start", round=game.round_index + 1), bold=True)
        self.put("#explain", "")
        self.refresh_table()
        self.apply_size()
        self.advance()

    # --- a human's choice ---------------------------------------------------------------
    def pass_and_play(self) -> bool:
        """Several humans at one keyboard, who want their choices kept from each other."""
        return self.options.handover and not self.options.watch and len(self.ctl.humans) > 1

    def hand_over(self, seat: int) -> None:
        """Hide the table (no marks left behind it), then let `seat` choose once they are ready."""
        from .handover import HandoverScreen

        game = self.ctl.game
        self.chooser, self.stage, self.picked = None, "", None
        self.state = "handover"
        self.app.clear_notifications()  # a hint notice for the last human must not reach the next
        self.set_prompt("")
        self.refresh_table()
        where = t("handover.where", round=game.round_index + 1, turn=game.turn_number + 1,
                  call=self.ctl.call_text())
        token = self.token

        def ready(_result=None) -> None:
            if self.token == token and self.state == "handover" and self.is_attached:
                self.begin_human(seat)

        self.app.push_screen(HandoverScreen(game.names[seat], where), ready)

    def set_main_seat(self, seat: int) -> None:
        """Show `seat` as the large grid (pass-and-play: the human choosing now)."""
        if seat == self.main_seat:
            return
        self.main_seat = seat
        order = self.seat_order()
        panels = [self.query_one("#own-panel", SeatPanel), *self.query(".opponent").results(SeatPanel)]
        for panel, shown in zip(panels, order):
            panel.seat = panel.grid.seat = shown
        self._shown.clear()

    def begin_human(self, seat: int) -> None:
        self.set_main_seat(seat)
        self.chooser = seat
        view = self.ctl.views[seat]
        self.picked = None
        if view.phase is Phase.GIFT:
            self.stage = "gift"
            left = view.names[(seat + 1) % view.players]
            self.set_prompt(t("prompt.gift", name=left))
        elif view.phase is Phase.PLACE:
            self.stage = "place"
            card, height = view.received
            self.set_prompt(t("prompt.place", card=f"{card.number} x{height}"))
        elif len(view.candidates) > 1:
            self.stage = "pick"
            self.set_prompt(t("prompt.pick", cards=", ".join(str(c.number) for c, _ in view.candidates)))
        else:
            self.stage = "dest"
            self.picked = view.candidates[0]
            self.set_prompt(t("prompt.move", card=self.picked[0].number))
        self.state = "choosing"
        own = self.query_one("#own-panel", SeatPanel)
        own.grid.cursor = None
        self.refresh_table()
        own.grid.focus()

    def marks_for_choice(self):
        """Legal cells for the chooser now, and where the cursor starts."""
        view = self.ctl.views[self.chooser]
        marks: dict = {}
        if self.stage in ("pick", "gift"):
            for _card, cell in view.candidates:
                marks[cell] = "pick"
            return marks, view.candidates[0][1]
        if self.stage == "place":
            for move in view.legal_moves():
                marks[move.to] = "duck"
            return marks, view.legal_moves()[0].to
        card, origin = self.picked
        marks[origin] = "called"
        grid = view.grid.cells
        moves = [m for m in view.legal_moves() if m.card == card]
        for move in moves:
            marks[move.to] = "cover" if move.to in grid else "duck"
        nearest = min(moves, key=lambda m: (abs(m.to[0] - origin[0]) + abs(m.to[1] - origin[1]), m.to[1], m.to[0]))
        return marks, nearest.to

    def on_grid_widget_confirmed(self, message: GridWidget.Confirmed) -> None:
        if self.chooser is None or message.grid.seat != self.chooser:
            return
        view = self.ctl.views[self.chooser]
        cell = message.cell
        if self.stage == "pick":
            self.picked = next(item for item in view.candidates if item[1] == cell)
            self.stage = "dest"
            self.set_prompt(t("prompt.move", card=self.picked[0].number))
            message.grid.cursor = None
            self.refresh_table()
            return
        if self.stage == "gift":
            card = next(c for c, at in view.candidates if at == cell)
            move = Move(card, None)
        elif self.stage == "place":
            move = Move(view.received[0], cell)
        else:
            move = Move(self.picked[0], cell)
        try:
            self.ctl.submit(self.chooser, move)
        except IllegalMoveError as err:
            self.app.notify(str(err), severity="error")
            return
        self.next_human()

    def action_back(self) -> None:
        if self.stage == "dest" and self.chooser is not None and len(self.ctl.views[self.chooser].candidates) > 1:
            self.stage = "pick"
            self.picked = None
            self.query_one("#own-panel", SeatPanel).grid.cursor = None
            view = self.ctl.views[self.chooser]
            self.set_prompt(t("prompt.pick", cards=", ".join(str(c.number) for c, _ in view.candidates)))
            self.refresh_table()

    def action_log_scroll(self, direction: int) -> None:
        log = self.query_one("#log", RichLog)
        (log.scroll_page_down if direction > 0 else log.scroll_page_up)()

    def action_settings(self) -> None:
        from .settings_screen import SettingsScreen

        self.app.push_screen(SettingsScreen())

    def action_hint(self) -> None:
        from . import hint

        if self.check_action("hint", ()):
            hint.request(self)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "hint":  # a human is choosing and the settings allow hints
            if self.state != "choosing" or self.chooser is None:
                return False  # decided without importing the hint (and expert) code
            from .hint import enabled

            return enabled(self.app)
        if action == "flip":
            return self.state == "await-flip"
        if action == "back":
            return (self.stage == "dest" and self.chooser is not None
                    and len(self.ctl.views[self.chooser].candidates) > 1)
        return True
