"""The table: every grid, the middle of the table, the log, and the turn flow.

The screen's regions have fixed sizes, chosen from the terminal's size and the number of
players only: a grid that grows, a longer log or a new call never moves anything else, and
each grid draws the largest cards that fit its region.
"""
from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from math import ceil

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical
from textual.geometry import Region
from textual.reactive import var
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from ...common.i18n import t, tn
from ...common.untrusted import NAME_MAX, shown, textual_escaped
from ...engine.cards import CARDS
from ...engine.errors import IllegalMoveError
from ...engine.game import CHOOSING, Phase
from ...engine.moves import Move
from ..controller import TurnController
from ...players.events import (BotFlips, Flipped, FlipAwaited, GameOver, Revealed, RoundOver, RoundStarted,
                               TurnOver)
from ..flow import (BotsFailed, ChoiceAsked, ChoiceTaken, HandOver, Notices, Said, StatusChanged, TableFlow,
                    TurnState, Waiting)
from ..options import AppOptions
from ...common.telling import round_end_words, round_scores_words, round_start_words
from ..widgets.cards import CURSOR_STYLE, MOVING_STYLE, TAG_STYLE, edge, family_letter, line_text
from ..widgets.core import CURSOR_MARKER, JUMP_KEYS, MARKERS, DrawnByLines, GridWidget, KeyBar, TableLog, TextStatic
from ..widgets.glyphs import ASCII_GLYPHS, glyphs
from ..render import new_painter
from ..render.textual_compat import PaintedOnceAtStart
from ..words import bot_label, error_text, flip_word, variant_label

SMALL_WIDTH, SMALL_HEIGHT = 110, 34  # below this, the compact layout
HEAP_WIDTH = 8  # three heaps side by side in the side column
SIDE_WIDTH = 28  # the side column at full size (duckcover.tcss)


def discard_count(count: int, limit: int) -> str:
    """'3 discarded - 5 more end the round', each count said in the singular or plural."""
    return t("table.discard_count", discarded=tn("table.discarded", count), more=tn("table.more", max(0, limit - count)))


class Stage(StrEnum):
    """What the human choosing now is asked."""

    NONE = ""
    PICK = "pick"  # which of several called cards moves
    DEST = "dest"  # where the moving card goes
    GIFT = "gift"  # low blows: which duck to give away
    PLACE = "place"  # low blows: where the received stack goes


class SeatTitle(DrawnByLines, Widget):
    """A seat's one-line header: name, Captain, this round's splashes and the game total.
    It never wraps: what does not fit is dropped (bot, stacks) or cut (the name)."""

    DEFAULT_CSS = "SeatTitle { height: 1; width: 1fr; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.parts: tuple = ()
        self.drawn: Text | None = None  # the line for `parts` at the width it was made for

    def set_parts(self, name: str, who: str, captain: bool, stacks: int, now: int, total: int) -> None:
        parts = (name, who, captain, stacks, now, total)
        if parts == self.parts:
            return
        width = self.size.width
        was, self.parts = self.drawn, parts
        self.drawn = self.line(parts, width)  # made once per change: render() shows it
        if was is not None and was.cell_len == self.drawn.cell_len and self.drawn.cell_len <= width:
            # The same length (the numbers changed): repaint from the first character that differs.
            old_text, new_text = was.plain, self.drawn.plain
            start = next((i for i, (a, b) in enumerate(zip(old_text, new_text)) if a != b), len(old_text))
            self.refresh(Region(start, 0, max(1, width - start), 1))
        else:
            self.refresh()

    def on_resize(self) -> None:
        if self.parts:  # what fits depends on the width
            self.drawn = self.line(self.parts, self.size.width)
            self.refresh()

    def render(self) -> Text:
        return self.drawn or Text()

    def line(self, parts: tuple, width: int) -> Text:
        name, who, captain, stacks, now, total = parts
        tail = Text()
        if captain:
            tail.append(" " + t("word.captain"), style="bold reverse")
        head = Text(name, style="bold")
        score = Text(" " + t("table.score", now=now, total=total))
        if head.cell_len + tail.cell_len + score.cell_len > width:  # the name whole before the words
            score = Text(" " + t("table.score_short", now=now, total=total))
        extras = [Text(f" ({who})", style="dim"), Text(" " + tn("table.stacks", stacks), style="dim")]
        room = width - score.cell_len - tail.cell_len
        if head.cell_len > room:
            head.truncate(max(1, room), overflow="ellipsis")
        line = head
        for extra in extras:
            if line.cell_len + extra.cell_len <= room:
                line = line + extra
        return line + tail + score


class SeatPanel(Vertical):
    """A player's header and grid."""

    def __init__(self, seat: int, large: bool, **kwargs) -> None:
        super().__init__(**kwargs)
        self.seat = seat
        self.title = SeatTitle(classes="seat-title")
        self.grid = GridWidget(seat, large=large, focusable=large, narrow=not large, fit=True, ring=large,
                               id="own-grid" if large else None)

    def compose(self) -> ComposeResult:
        yield self.title
        yield self.grid


class Heaps(DrawnByLines, Widget):
    """The middle of the table as cards: the call, the Captain pile's top, the Discard area."""

    DEFAULT_CSS = "Heaps { height: 6; width: 1fr; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.glyphs = glyphs()
        self.faces: tuple = ()

    def set_faces(self, faces: tuple[tuple[str, str, str], ...]) -> None:
        """(label, face, note) per heap; an empty face draws an empty place."""
        if faces != self.faces:
            old, self.faces = self.faces, faces
            if len(old) != len(faces):
                self.refresh()
                return
            for index, (was, now) in enumerate(zip(old, faces)):  # only the rows that changed
                if was != now:
                    before, after = self.heap_rows(*was), self.heap_rows(*now)
                    for row, (line_was, line_now) in enumerate(zip(before, after)):
                        if line_was != line_now:
                            self.refresh(Region(index * (HEAP_WIDTH + 1), row, HEAP_WIDTH, 1))

    def heap_rows(self, label: str, face: str, note: str) -> list[tuple[str, bool]]:
        """(text, is a card) per row: the label, then the card or an empty place."""
        width, inner = HEAP_WIDTH, HEAP_WIDTH - 2
        if not face:
            box = self.glyphs.empty
            rows = [edge(box.tl, box.h, box.tr, width), *[box.v + " " * inner + box.v] * 3,
                    edge(box.bl, box.h, box.br, width)]
        else:
            box = self.glyphs.plain
            rows = [edge(box.tl, box.h, box.tr, width), box.v + " " * inner + box.v,
                    box.v + f"{face[:inner]:^{inner}}" + box.v, box.v + " " * inner + box.v,
                    edge(box.bl, box.h, box.br, width, note)]
        return [(f"{label[:width]:^{width}}", False)] + [(row, bool(face)) for row in rows]

    def render(self) -> Text:
        lines = [Text() for _ in range(6)]
        for index, heap in enumerate(self.faces):
            for line, (row, card) in zip(lines, self.heap_rows(*heap)):
                if index:
                    line.append(" ")
                line.append(row, style=Style(bold=True) if card or line is lines[0] else Style(dim=True))
        return Text("\n").join(lines)


# The legend's example: a card of two digits in a stack, so every part of a one-line card shows.
LEGEND_CARD, LEGEND_HEIGHT = CARDS[1][12], 2


def card_legend_words(splashes: Sequence[int] | None, drop: str) -> str:
    """`B12●5x2: family B, card 12, 5 splashes, stack of 2`: the example drawn by the code that
    draws the cards and its splashes read from the splash table in force (`splashes`; None
    when the round scores card numbers), so the legend cannot state a fact the rules deny."""
    card = LEGEND_CARD
    count = None if splashes is None else splashes[card.number - 1]
    facts = {"example": line_text(card, count, LEGEND_HEIGHT, drop, width=20).strip(),
             "family": family_letter(card.family), "number": card.number, "height": LEGEND_HEIGHT}
    if count is None:
        return t("legend.card_numbers", **facts)
    return tn("legend.card", count, **facts)


class FlowStep:
    """A step of the flow that Textual runs later (`call_later`, a timer), drawn as lines when
    it ends (TableScreen.painted). Its `run` is a bound method without parameters: Textual
    counts a callback's parameters once per function (a partial's, with inspect, at every call)."""

    __slots__ = ("screen", "callback")

    def __init__(self, screen: TableScreen, callback) -> None:
        self.screen, self.callback = screen, callback

    def run(self) -> None:
        self.screen.painted(self.callback)


class TableScreen(PaintedOnceAtStart, Screen):
    """One game at the table (a `TurnController`): its `TableFlow` moves the game on, the screen
    shows what the flow tells it and hands it the player's flip and moves."""

    AUTO_FOCUS = "#own-grid"
    # Descriptions are UI text keys: the footer translates them as it draws.
    BINDINGS = [
        Binding("space,f", "flip", "key.flip"),
        Binding("t", "hint", "key.hint"),
        Binding("o", "settings", "key.settings", show=False),  # listed in the help
        Binding("escape", "back", "key.back"),
        Binding("pageup", "log_scroll(-1)", "key.scroll_log", show=False),
        Binding("pagedown", "log_scroll(1)", "key.scroll_log", show=False),
    ]

    # What the table shows, as reactive attributes: each watcher redraws only what depends on its
    # attribute, and only when the value changed. `var`: no repaint of the whole screen and no
    # layout pass (the regions have fixed sizes); init=False: nothing is drawn before compose.
    state = var(TurnState.IDLE, init=False)  # flow.state as last told: the footer's keys follow it (and chooser, stage)
    chooser: var[int | None] = var(None, init=False)  # the human seat choosing now
    stage = var(Stage.NONE, init=False)
    main_seat = var(0, init=False)  # the seat in the large grid (pass-and-play: the human choosing)
    prompt_text = var("", init=False)  # the prompt: what set_prompt asked, and the table's status line
    explain_text = var("", init=False)  # what the flip means, above the prompt
    # The four text parts as drawn (None: not yet); a redraw that makes the same text draws nothing.
    status_shown: var[Text | None] = var(None, init=False)
    info_shown: var[Text | None] = var(None, init=False)
    totals_shown: var[Text | None] = var(None, init=False)
    prompt_shown: var[Text | None] = var(None, init=False)

    def __init__(self, controller: TurnController, options: AppOptions, earlier: Sequence[str] = ()) -> None:
        super().__init__()
        self.ctl = controller
        self.options = options
        self.earlier = list(earlier)  # a resumed game: its story so far, for the log
        self.picked = None  # (card, origin) being moved
        self.flow = TableFlow(controller, self, speed=options.speed, watch=options.watch, handover=options.handover)
        self.flow.listen(self.react)
        self._workers: dict = {}  # the bots' worker -> (done, failed), see in_worker
        humans = controller.humans
        self.set_reactive(TableScreen.main_seat, humans[0] if humans else 0)  # compose places it
        self.base_prompt = ""  # what set_prompt asked
        self._parts: dict = {}  # selector -> widget, see part()
        self._seat_panels: list[SeatPanel] = []
        self.log_lines: list[str] = []
        self._bindings_key = None
        self.glyphs = glyphs()
        self.painter = new_painter(self)  # what the flow's steps change, drawn as lines (render/paint.py)
        self.keys_stale = True  # the bindings changed since the key bar read them
        self.painter.before_flush.append(self.keys_now)

    # --- layout -------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        # The layout is chosen before any widget exists, so each is styled once (a class set
        # on the screen later restyles every widget on it).
        self.set_class(self.is_small(), "-small")
        self.set_class(self.glyphs is ASCII_GLYPHS, "-ascii")
        yield TextStatic(id="status")
        opponents, table = Container(id="opponents"), Container(id="table")
        self.size_opponents(opponents, table)
        # One container, three regions: side by side at full size; in the compact layout the
        # opponents take the whole width above your grid and the log (a grid layout, see the tcss).
        with table:
            with opponents:
                for seat in self.seat_order()[1:]:
                    yield SeatPanel(seat, large=False, classes="opponent")
            with Vertical(id="mine"):
                yield SeatPanel(self.main_seat, large=True, id="own-panel")
                yield TextStatic(id="prompt")
            with Vertical(id="side"):
                yield Heaps(id="heaps")
                yield TextStatic(id="table-info")
                totals = TextStatic(id="totals")
                totals.styles.height = self.ctl.game.n + 1  # every player, whole
                yield totals
                yield TableLog(id="log")
        yield KeyBar()

    def seat_name(self, seat: int) -> str:
        """A player's name as the table shows it: names are untrusted (records, the network)."""
        return shown(self.ctl.game.names[seat], NAME_MAX)

    def seat_kind(self, seat: int) -> str:
        """Who plays a seat, as its panel's title says: a bot's difficulty or a human."""
        spec = self.ctl.seats[seat]
        kind = shown(bot_label(spec.bot), NAME_MAX) if spec.bot else t("seat.human")
        rating = self.ctl.rating(seat)  # on a server: the player's rating there
        return kind if rating is None else t("net.rating_beside", kind=kind, ordinal=rating)

    def seat_order(self) -> list[int]:
        n = self.ctl.game.n
        return [(self.main_seat + i) % n for i in range(n)]

    def on_mount(self) -> None:
        # One drawing style for every opponent: a grid that spreads out takes the others along.
        grids = [panel.grid for panel in self.query(".opponent").results(SeatPanel)]
        for grid in grids:
            grid.alike = grids
        self.ctl.attach(self.flow)
        self.begin()  # the first frame is already interactive

    def begin(self) -> None:
        game = self.ctl.game
        for line in self.earlier:
            self.log_line(line)
        if game.turn_number:  # a resumed game, or one joined mid-round
            joined = "log.watching" if self.options.watch else "log.resumed"
            self.log_line(t(joined, round=game.round_index + 1, turn=game.turn_number), bold=True)
        else:
            self.log_line(round_start_words(game.round_index + 1), bold=True)
        for line in self.ctl.joined_lines():
            self.log_line(line, bold=True)
        self.refresh_table()
        self.flow.advance()

    def on_resize(self) -> None:
        self.apply_size()

    def is_small(self) -> bool:
        return self.app.size.width < SMALL_WIDTH or self.app.size.height < SMALL_HEIGHT

    def apply_size(self) -> None:
        """Fix the regions' sizes for this terminal size and number of players."""
        small = self.is_small()
        if small != self.has_class("-small"):
            self.set_class(small, "-small")
            self.refresh_table()
        self.size_opponents(self.query_one("#opponents"), self.query_one("#table"))

    def size_opponents(self, opponents: Widget, table: Widget) -> None:
        """Compact: the opponents in one or two columns above your grid, as tall as their
        number needs; otherwise a column of equal panels."""
        count = self.ctl.game.n - 1
        if self.is_small():
            columns = 1 if count <= 2 else 2
            rows = ceil(count / columns)
            opponents.styles.grid_size_columns = columns
            height = rows * (5 if rows <= 2 else 4)
            opponents.styles.height = height
            opponents.styles.width = None  # the whole width (the style sheet's)
            table.styles.grid_rows = f"{height} 1fr"
        else:
            opponents.styles.grid_size_columns = 1
            opponents.styles.height = "100%"
            # 30% of what is left of the side column, as when the opponents and your grid shared
            # a container of their own.
            opponents.styles.width = max(36, int(0.3 * (self.app.size.width - SIDE_WIDTH)))
        # A column of boxed panels needs 6 lines each (edges, title, three rows of cards): six
        # opponents at 34 lines would lose a row of cards, so their panels lose their edges.
        tight = not self.is_small() and (self.app.size.height - 2) < 6 * count
        opponents.set_class(tight, "-tight")

    # --- drawing ------------------------------------------------------------------------
    def part(self, selector: str, kind: type[Widget] = Widget):
        """One of the table's widgets, looked up once: they are made in compose and never
        replaced, and a query walks the whole screen each time (it was a sixth of a reveal's
        handling and a third of a flip's in a client process: docs/serve.md)."""
        found = self._parts.get(selector)
        if found is None:
            found = self._parts[selector] = self.query_one(selector, kind)
        return found

    def seat_panels(self) -> list[SeatPanel]:
        """Every seat's panel in screen order, yours among them, looked up once (see part)."""
        if not self._seat_panels:
            self._seat_panels = list(self.query(SeatPanel))
        return self._seat_panels

    def refresh_table(self) -> None:
        game = self.ctl.game
        # A round that scores card numbers (Competition) shows no drops: the number is the score.
        splashes = None if game.round_rules.scores_numbers else game.rules.splashes
        for panel in self.seat_panels():
            seat = panel.seat
            marks, cursor = ({}, None)
            if seat == self.chooser and panel.id == "own-panel":
                marks, cursor = self.marks_for_choice()
                if panel.grid.cursor in marks:
                    cursor = panel.grid.cursor  # keep the player's cursor across refreshes
            grid = self.grid_of(seat)
            panel.grid.show(grid, splashes, marks, cursor)
            panel.title.set_parts(self.seat_name(seat), self.seat_kind(seat),
                                  seat == game.captain, len(grid),
                                  sum(game.round_rules.value(stack[-1].number) for stack in grid.values()),
                                  game.totals[seat])
            if panel.has_class("-captain") != (seat == game.captain):
                panel.set_class(seat == game.captain, "-captain")
        for panel in self.seat_panels():
            if panel.has_class("opponent"):
                panel.grid.match_size()
        self.status_shown = self.status_text()
        if not self.has_class("-small"):  # (hidden in the compact layout; apply_size draws them when it ends)
            self.part("#heaps", Heaps).set_faces(self.heap_faces())
            self.info_shown = self.table_info()
            self.totals_shown = self.totals_text()
        self.prompt_shown = self.prompt_display()
        self.update_bindings()

    def refresh_bindings(self) -> None:
        """The key bar reads the keys once, when the painter writes next or when Textual's
        signal calls it, whichever is first (a reveal refreshed the bindings four times)."""
        self.keys_stale = True
        super().refresh_bindings()

    def keys_now(self) -> None:
        if self.keys_stale and self.is_mounted:
            self.keys_stale = False
            self.part("KeyBar", KeyBar).keys_changed()

    def update_bindings(self) -> None:
        """Refresh the footer only when what the keys can do has changed."""
        key = (self.state, self.check_action("back", ()), self.check_action("hint", ()))
        if key != self._bindings_key:
            self._bindings_key = key
            self.refresh_bindings()

    # --- the watchers ---------------------------------------------------------------------
    def watch_status_shown(self, text: Text) -> None:
        self.part("#status", Static).update(text, layout=False)  # fixed sizes: no layout

    def watch_info_shown(self, text: Text) -> None:
        self.part("#table-info", Static).update(text, layout=False)

    def watch_totals_shown(self, text: Text) -> None:
        self.part("#totals", Static).update(text, layout=False)

    def watch_prompt_shown(self, text: Text) -> None:
        self.part("#prompt", Static).update(text, layout=False)

    def watch_prompt_text(self) -> None:
        self.prompt_shown = self.prompt_display()

    def watch_explain_text(self) -> None:
        self.prompt_shown = self.prompt_display()

    def watch_state(self) -> None:
        self.update_bindings()

    def watch_chooser(self) -> None:
        self.update_bindings()

    def watch_stage(self) -> None:
        self.update_bindings()

    def watch_main_seat(self) -> None:
        """Another seat in the large grid: every panel takes its seat in the new order."""
        order = self.seat_order()
        panels = sorted(self.seat_panels(), key=lambda panel: panel.id != "own-panel")  # yours first
        for panel, seat in zip(panels, order):
            panel.seat = panel.grid.seat = seat
            panel.grid.kept = None  # another seat's grid: its own bounds

    def grid_of(self, seat: int):
        """What the table shows of a seat: while it chooses, its grid before any move applies."""
        ctl = self.ctl
        if ctl.views and seat in ctl.views and seat == self.chooser:
            return ctl.views[seat].grid.cells
        return ctl.game.grid(seat)

    def status_text(self) -> Text:
        game = self.ctl.game
        text = Text(no_wrap=True, overflow="ellipsis")
        small = self.has_class("-small")
        if small:  # the middle of the table folds into the status lines
            text.append(" " + self.call_display() + " ", style="bold reverse")
        else:
            text.append(t("app.title"), style="bold")
        text.append("  " + t("table.round", round=game.round_index + 1, rounds=game.rules.rounds()))
        flip = game.turn_number + (1 if game.phase in CHOOSING else 0)
        if flip:  # before the round's first flip there is no flip to name
            text.append("  " + t("table.flip_no", turn=flip))
        text.append("  " + t("table.captain_is", name=self.seat_name(game.captain)))
        variants = sorted(game.round_rules.variants)  # this round's: a variant may skip some rounds
        if variants:
            text.append("  [" + ", ".join(variant_label(v) for v in variants) + "]", style="dim")
        if small:
            text.append("\n")
            text.append_text(self.heaps_line(self.app.size.width - 2))
        return text

    def heaps_line(self, width: int) -> Text:
        """The compact layout's line for the middle of the table: the count that ends the round
        first, then the heaps; where that is too long, the short form, which names every
        discarded card before anything else."""
        game = self.ctl.game
        pile, discard = game.pile, game.discard
        limit = game.round_rules.discard_limit(game.n)
        cards, top = " ".join(flip_word(c) for c in discard) or "-", flip_word(pile[-1]) if pile else "-"
        text = Text()
        if limit is not None:
            text.append(discard_count(len(discard), limit) + " | ", style="bold")
        text.append(t("table.short", draw=game.draw_size, pile=top, cards=cards))
        if text.cell_len <= width or limit is None:
            return text
        return Text(t("table.shortest", count=len(discard), limit=limit, cards=cards, draw=game.draw_size, pile=top))

    def call_label(self) -> str:
        """The call being played, else the last one (it stays until the next flip)."""
        game = self.ctl.game
        if game.phase in CHOOSING:
            return self.ctl.call_text()
        if game.history and game.phase is Phase.FLIP:
            return self.last_call_text()
        return ""

    def call_display(self) -> str:
        return f"{t('table.call')}: {self.call_label() or '-'}"

    def last_call_text(self) -> str:
        turn = self.ctl.game.last_turn
        if turn is None:
            return "-"
        return " + ".join(flip_word(code) for code in turn.flips)

    def heap_faces(self) -> tuple[tuple[str, str, str], ...]:
        game = self.ctl.game
        pile, discard = game.pile, game.discard
        limit = game.round_rules.discard_limit(game.n)
        count = f"{len(discard)}/{limit}" if limit is not None else str(len(discard))
        return ((t("table.call"), self.call_label(), ""),
                (t("table.pile_short"), flip_word(pile[-1]) if pile else "", str(len(pile)) if pile else ""),
                (t("table.discard_short"), flip_word(discard[-1]) if discard else "", count))

    def table_info(self) -> Text:
        game = self.ctl.game
        text = Text()
        discard = game.discard
        limit = game.round_rules.discard_limit(game.n)
        if limit is not None:  # first: what ends the round is never cut off
            text.append(discard_count(len(discard), limit) + "\n",
                        style="bold")
        text.append(tn("table.draw", game.draw_size) + "\n")
        text.append(t("table.discard", cards=" ".join(flip_word(c) for c in discard) or "-"))
        return text

    def totals_text(self) -> Text:
        game = self.ctl.game
        text = Text(t("table.totals") + "\n", style="bold", no_wrap=True, overflow="ellipsis")
        for seat in range(game.n):
            text.append(f"{self.seat_name(seat):<16} {game.totals[seat]:>4}\n", style="bold" if seat == self.main_seat else "")
        return text

    def prompt_display(self) -> Text:
        """The prompt, with the flip's explanation above it and, where cards have no edge to
        write in, the legend of the markers below."""
        text = Text()
        if self.explain_text and self.ctl.game.phase in CHOOSING and not self.has_class("-small"):
            text.append(self.explain_text + "\n", style="bold")
        text.append(self.prompt_text, style="bold")
        own = self.part("#own-panel", SeatPanel).grid
        if self.chooser is not None and own.marks and not own.card_size().boxed:
            text.append("\n")
            text.append(CURSOR_MARKER, style=CURSOR_STYLE)
            text.append(" " + t("legend.cursor") + "  ")
            text.append(MARKERS["called"], style=MOVING_STYLE)
            text.append(" " + t("mark.called") + "  ")
            for key in JUMP_KEYS[:3]:
                text.append(key, style=TAG_STYLE)
                text.append(" ")
            text.append("... " + t("legend.jump"))
            if len(own.tags) < len(own.targets):  # more cells than keys: the rest keep their marks
                text.append("  " + MARKERS["cover"] + " " + t("mark.cover") + "  " + MARKERS["pick"] + " " + t("mark.pick"))
        if any(not panel.grid.card_size().boxed for panel in self.seat_panels()):
            text.append("\n" + self.card_legend(), style="dim")
        return text

    def card_legend(self) -> str:
        """How a card reads where it is one line of text, and, if it fits, what a missing letter means."""
        game = self.ctl.game
        legend = card_legend_words(None if game.round_rules.scores_numbers else game.rules.splashes, self.glyphs.drop)
        own = legend + "; " + t("legend.own")
        return own if len(own) <= self.part("#prompt").content_size.width else legend

    def log_line(self, line: str | Text, bold: bool = False) -> None:
        if isinstance(line, str):
            line = shown(line)  # the lines quote names: printable text only
        self.log_lines.append(str(line))  # plain text, for anyone who reads the log back (tests too)
        self.part("#log", TableLog).write(Text(line, style="bold" if bold else "") if isinstance(line, str) else line)

    def set_prompt(self, text: str) -> None:
        self.base_prompt = text
        self.show_prompt()

    def show_prompt(self) -> None:
        """The prompt, and the table's status line under it if it has one (a remote table: who
        has chosen, the time left; the line is always there, so the prompt keeps its height)."""
        line = self.ctl.status_line(self.part("#prompt").size.width or 80)
        self.prompt_text = self.base_prompt if line is None else f"{self.base_prompt}\n{line}"

    # --- the pace the flow keeps ----------------------------------------------------------
    def later(self, callback, delay: float) -> None:
        """Pace the game; at speed instant, no timers at all."""
        step = FlowStep(self, callback).run
        if delay <= 0:
            self.call_later(step)
        else:
            self.set_timer(delay, step)

    def painted(self, callback, *args) -> None:
        """Run a step of the flow; what it changes is drawn as lines when it ends."""
        with self.painter.batch():
            callback(*args)

    def in_worker(self, work, done, failed) -> None:
        worker = self.run_worker(work, group="bots", thread=True, exit_on_error=False)
        self._workers[worker] = (done, failed)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker not in self._workers or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return  # (a hint's worker, or one still running)
        done, failed = self._workers.pop(event.worker)
        if event.state is WorkerState.SUCCESS:
            self.painted(done, event.worker.result)
        else:
            self.painted(failed)

    def live(self) -> bool:
        return self.is_attached

    # --- what the flow says: the screen shows it ------------------------------------------
    def react(self, event) -> None:
        """What the flow tells (app/flow.py): the screen shows it, and decides nothing."""
        self.state = self.flow.state
        match event:
            case FlipAwaited(seat):
                self.main_seat = seat
                self.refresh_table()
                self.set_prompt(t("prompt.flip_named", name=self.seat_name(seat))
                                if len(self.ctl.humans) > 1 else t("prompt.flip"))
            case BotFlips(seat, pause) if pause > 0:  # at speed instant it would flash by, unread
                self.set_prompt(t("prompt.captain_flips", name=self.seat_name(seat)))
            case Flipped(_, resolved):
                line, explain = self.ctl.flip_words(resolved)
                self.log_line(line, bold=True)
                self.explain_text = explain
                if explain:
                    self.log_line(explain)
            case HandOver(seat, number):
                self.hand_over(seat, number)
            case ChoiceAsked(seat):
                self.begin_human(seat)
            case Waiting():
                self.chooser, self.stage = None, Stage.NONE
                quack = None if self.options.watch else self.ctl.quack_prompt(self.main_seat)
                self.set_prompt(quack or self.ctl.waiting_prompt())
                self.refresh_table()
            case ChoiceTaken():
                self.chooser, self.stage = None, Stage.NONE
            case Revealed(moves, None, _, _):  # low blows: the gifts are out, now everyone places
                for line in self.ctl.gift_lines(moves):
                    self.log_line(line)
            case TurnOver(turn):
                for line in self.ctl.turn_lines(turn) + self.ctl.fallback_lines():
                    self.log_line("  " + line)
                self.chooser = None
                self.app.save_game()
                self.refresh_table()
            case RoundOver(_):
                self.show_round_end()
            case RoundStarted(number):
                self.app.save_game()
                self.log_line(round_start_words(number), bold=True)
                self.explain_text = ""
                for panel in self.query(SeatPanel):
                    panel.grid.new_round()
                self.refresh_table()
            case GameOver():
                from ..screens.core import GameOverScreen

                self.app.push_screen(GameOverScreen(self.ctl))
            case Notices(lines):
                for line in lines:
                    self.app.notify(textual_escaped(line), severity="error")  # names a plugin
            case BotsFailed():
                self.app.notify(t("notify.bot_failed"), severity="error")
            case Said(line):
                self.log_line(line)
            case StatusChanged():
                self.show_prompt()

    def action_flip(self) -> None:
        self.flow.press_flip()

    # Keys typed while the table moves on by itself (a reveal on screen, a bot's flip, bots
    # still choosing): a flip for the next turn is kept and played as soon as it is asked for;
    # a key of the choice (where the next card goes is not known yet) is refused, visibly.
    WAIT_STATES = (TurnState.PAUSE, TurnState.WAITING, TurnState.RESOLVING, TurnState.FLIPPING)
    FLIP_KEYS = ("space", "f")
    CHOICE_KEYS = ("enter", "tab", "shift+tab", "up", "down", "left", "right", "h", "j", "k", "l")

    def on_key(self, event) -> None:
        if self.state not in self.WAIT_STATES or self.options.watch or not self.ctl.humans:
            return
        if event.key in self.FLIP_KEYS and self.flow.flip_is_next_here():
            event.stop()
            event.prevent_default()
            self.flow.flip_ahead = True
            self.set_prompt(t("prompt.flip_ahead"))
        elif event.key in self.CHOICE_KEYS or event.key in self.FLIP_KEYS or event.character in JUMP_KEYS:
            event.stop()
            event.prevent_default()
            self.app.bell()
            self.set_prompt(t("prompt.wait_keys"))

    def show_round_end(self) -> None:
        from ..screens.core import RoundEndScreen

        game = self.ctl.game
        self.set_prompt("")
        self.refresh_table()
        outcome = game.results[-1]
        self.log_line(round_end_words(len(game.results), outcome.reason), bold=True)
        # The round's scores stay in the log once the scorepad is closed (and its story retold later
        # says them the same way).
        self.log_line(round_scores_words(len(game.results), game.names, outcome.scores))
        # After the refresh, so the table behind the scorepad shows the round's last line.
        self.call_after_refresh(self.app.push_screen, RoundEndScreen(self.ctl, auto=self.options.watch),
                                self.flow.after_round_end)

    # --- a human's choice ---------------------------------------------------------------
    def hand_over(self, seat: int, number: int) -> None:
        """Hide the table (no marks left behind it), then let `seat` choose once they are ready."""
        from ..screens.handover import HandoverScreen

        game = self.ctl.game
        self.chooser, self.stage, self.picked = None, Stage.NONE, None
        self.app.clear_notifications()  # a hint notice for the last human must not reach the next
        self.set_prompt("")
        self.refresh_table()
        where = t("handover.where", round=game.round_index + 1, turn=game.turn_number + 1,
                  call=self.ctl.call_text())
        self.app.push_screen(HandoverScreen(self.seat_name(seat), where),
                             lambda _result=None: self.flow.handed_over(seat, number))

    def begin_human(self, seat: int) -> None:
        self.main_seat = seat
        self.chooser = seat
        view = self.ctl.views[seat]
        self.picked = None
        if view.phase is Phase.GIFT:
            self.stage = Stage.GIFT
            left = self.seat_name((seat + 1) % view.players)
            self.set_prompt(t("prompt.gift", name=left))
        elif view.phase is Phase.PLACE:
            self.stage = Stage.PLACE
            card, height = view.received
            self.set_prompt(t("prompt.place", card=f"{card.number} x{height}"))
        elif len(view.candidates) > 1:
            self.stage = Stage.PICK
            self.set_prompt(t("prompt.pick", cards=", ".join(str(c.number) for c, _ in view.candidates)))
        else:
            self.stage = Stage.DEST
            self.picked = view.candidates[0]
            self.set_prompt(t("prompt.move", card=self.picked[0].number))
        own = self.query_one("#own-panel", SeatPanel)
        own.grid.cursor = None
        self.refresh_table()
        own.grid.focus()

    def marks_for_choice(self):
        """Legal cells for the chooser now, and where the cursor starts."""
        view = self.ctl.views[self.chooser]
        marks: dict = {}
        if self.stage in (Stage.PICK, Stage.GIFT):
            for _card, cell in view.candidates:
                marks[cell] = "pick"
            return marks, view.candidates[0][1]
        if self.stage is Stage.PLACE:
            for move in view.legal_moves():
                marks[move.to] = "duck"
            return marks, view.legal_moves()[0].to
        card, origin = self.picked
        marks[origin] = "called"
        grid = view.grid.cells
        for move in view.legal_moves():
            if move.card == card:
                marks[move.to] = "cover" if move.to in grid else "duck"
        return marks, origin  # the cursor starts on the moving card: arrows go from there

    def on_grid_widget_confirmed(self, message: GridWidget.Confirmed) -> None:
        if self.chooser is None or message.grid.seat != self.chooser:
            return
        view = self.ctl.views[self.chooser]
        cell = message.cell
        if self.stage is Stage.PICK:
            self.picked = next(item for item in view.candidates if item[1] == cell)
            self.stage = Stage.DEST
            self.set_prompt(t("prompt.move", card=self.picked[0].number))
            message.grid.cursor = None
            self.refresh_table()
            return
        if self.stage is Stage.GIFT:
            card = next(c for c, at in view.candidates if at == cell)
            move = Move(card, None)
        elif self.stage is Stage.PLACE:
            move = Move(view.received[0], cell)
        else:
            move = Move(self.picked[0], cell)
        try:
            self.flow.submit(self.chooser, move)
        except IllegalMoveError as err:
            self.app.notify(error_text(err), severity="error")

    def on_grid_widget_on_moving_card(self, message: GridWidget.OnMovingCard) -> None:
        # In the prompt, not a notice: a notice would cover the log for seconds.
        if self.chooser is not None and self.picked is not None:
            self.set_prompt(t("prompt.on_moving_card", card=self.picked[0].number))

    def action_back(self) -> None:
        if self.check_action("back", ()):
            self.stage = Stage.PICK
            self.picked = None
            self.query_one("#own-panel", SeatPanel).grid.cursor = None
            view = self.ctl.views[self.chooser]
            self.set_prompt(t("prompt.pick", cards=", ".join(str(c.number) for c, _ in view.candidates)))
            self.refresh_table()

    def action_log_scroll(self, direction: int) -> None:
        self.query_one("#log", TableLog).page(direction)

    def action_settings(self) -> None:
        if not self.ctl.settings_here:
            return  # a guest on a server: the settings file is the host's
        from ..screens.settings import SettingsScreen

        self.app.push_screen(SettingsScreen())

    def action_hint(self) -> None:
        from . import hint

        if self.check_action("hint", ()):
            hint.request(self)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "hint":  # a human is choosing and the settings allow hints
            if self.state is not TurnState.CHOOSING or self.chooser is None:
                return False  # decided without importing the hint (and expert) code
            from .hint import enabled

            return enabled(self.app)
        if action == "flip":
            return self.state is TurnState.AWAIT_FLIP
        if action == "settings":
            return self.ctl.settings_here
        if action == "back":
            return (self.stage is Stage.DEST and self.chooser is not None
                    and len(self.ctl.views[self.chooser].candidates) > 1)
        return True
