"""The Review screen: what each decision of a game cost, by the expert (duckcover.players.review).

Reached with `v` from the Game over screen, the Games screen and the replay viewer. The review
runs in a worker thread (a process pool does the searching) with a progress bar; Escape
cancels it. Every decision is kept in the data directory as soon as it is judged (the cache the
command line shares), so a cancelled review goes on where it stopped and a whole one opens at once.

Every seat's figures side by side; the chosen seat's cost per decision as a sparkline; its
decisions in a table; the highlighted decision's position on a grid with the move played and
the expert's best move marked by words and frames (never by colour alone).
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.binding import Binding
from textual.widgets import Static

from ...common.i18n import local_number, t
from ...common.untrusted import NAME_MAX, shown
from ...engine.game import Game
from ..widgets.cards import COVER_STYLE, MOVING_STYLE, card_lines, empty_lines
from ..widgets.core import GridWidget
from .. import places
from ..words import bot_label
from ..widgets.footer import KeyFooter

if TYPE_CHECKING:
    from ...players import review as rv

# The review itself (the expert's search), the record writer and Textual's tables and charts are
# imported where they are used: the title imports every screen module to list their places.

BUDGET: int | None = None  # samples per move (None: the review's default; tests lower it)
JOBS: int | None = None  # processes (None: every core; tests use 1)
SYMBOLS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
# The grid's marks for a reviewed decision: a word on framed cards, one character on small ones.
GRID_MARKS = {"played": ("review.grid.played", "x"), "best": ("review.grid.best", "+"),
              "both": ("review.grid.both", "*")}


def move_words(point, move) -> str:
    """A move of a reviewed decision in the table's words ("cover 8 with 5"); "?" without the
    decision's position (it is always there: the review keeps every decision's point)."""
    from ...players import review as rv

    return rv.move_words(point, move) if point is not None else "?"


def reason_words(point, decision) -> str:
    from ...players import review as rv

    return (rv.reason(point, decision) or "") if point is not None else ""


def cost_words(decision) -> str:
    """The cost as the marks read it: both figures to 0.1 point."""
    from ...players import review as rv

    return f"{local_number(rv.shown_figure(decision.cost), 1)}\u00b1{local_number(rv.shown_figure(decision.stderr), 1)}"


def mark_words(mark: str | None) -> str:
    return f"{SYMBOLS[mark]} {t('review.mark.' + mark)}" if mark else ""


class ReviewGrid(GridWidget):
    """A grid that also draws where a move went and where the expert would have put it."""

    def _cell(self, cell, size):
        mark = self.marks.get(cell)
        if mark not in GRID_MARKS:
            return super()._cell(cell, size)
        key, marker = GRID_MARKS[mark]
        word = t(key)
        stack = self.cells.get(cell)
        if not stack:
            return empty_lines(size, self.glyphs, label=word, at_cursor=True, marker=marker)
        card, splashes = stack[-1], self.splashes[stack[-1].number - 1]
        if not size.boxed:
            face = card_lines(card, splashes, len(stack), type(size)(size.name, size.width - 2, 1), self.glyphs)[0]
            return [Text(marker, style=COVER_STYLE) + face + Text(" ")]
        return card_lines(card, splashes, len(stack), size, self.glyphs, frame="target+cursor", label=word,
                          label_style=COVER_STYLE if mark != "both" else MOVING_STYLE)


def grid_marks(grid, decision: rv.Decision) -> dict:
    """On the seat's grid before its move: the moving card ("called"), where it went ("played")
    and where the expert would have put it ("best"), or "both" when they agree."""
    def origin(card):
        return next((cell for cell, stack in grid.items() if stack[-1] == card), None)

    marks = {}
    for card in {decision.played.card, decision.best.card}:  # two cards: a Max tie, two flips
        cell = origin(card)
        if cell is not None:
            marks[cell] = "called"
    played, best = decision.played.to, decision.best.to
    if played == best:
        marks[played] = "both"
    else:
        marks[played], marks[best] = "played", "best"
    return marks


def cache_file(game: Game, root: Path | None = None) -> Path:
    """The review cache of this game: the one the command line reads too (`duckcover review`)."""
    from ...players import review as rv

    folder = Path(root) / "reviews" if root else None
    return rv.cache_path(game, None, BUDGET or rv.BUDGET, folder=folder)


def kept_review(game: Game, bots: list[str | None], root: Path | None = None) -> rv.Review | None:
    """The review of every seat kept for this game, if it is whole (the replay viewer's marks)."""
    from ...players import review as rv
    from ...saves.record import to_record

    return rv.stored_review(to_record(game, bots=bots), game, cache_file(game, root), budget=BUDGET or rv.BUDGET)


class ReviewScreen(Screen):
    BINDINGS = [
        Binding("escape,q", "back", "key.back"),
        Binding("s", "next_seat", "review.key.seat"),
        Binding("m", "next_mark", "review.key.next_mark"),
        Binding("question_mark", "help", "key.help", key_display="?"),  # the review's own help
    ]
    CSS_PATH = "review.tcss"
    AUTO_FOCUS = "#review-decisions"

    def __init__(self, game: Game, bots: list[str | None], title: str = "") -> None:
        from ...players import review as rv
        from ...saves.record import to_record

        super().__init__()
        self.game = game
        self.data = to_record(game, bots=bots)  # one record per game, whichever screen asks
        self.bots = list(bots)
        self.record_title = title
        self.points = {p.place: p for p in rv.points(game)}
        humans = [seat for seat, bot in enumerate(bots) if bot is None]
        self.seat = humans[0] if humans else 0
        self.result: rv.Review | None = None
        self.cancel = threading.Event()
        self.running = False

    # --- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        from textual.widgets import DataTable, ProgressBar, Sparkline

        yield Static(self.heading(), id="review-title")
        with Horizontal(id="review-working"):
            yield ProgressBar(id="review-progress", show_eta=False)
            yield Static(id="review-status")
        yield DataTable(id="review-seats", cursor_type="row", zebra_stripes=False)
        yield Static(id="review-chart-title")
        yield Sparkline([], id="review-chart")
        with Horizontal(id="review-body"):
            yield DataTable(id="review-decisions", cursor_type="row")
            with Vertical(id="review-side"):
                yield Static(id="review-position")
                yield ReviewGrid(0, fit=True, id="review-grid")
                yield Static(id="review-legend")
        yield KeyFooter()

    def heading(self) -> Text:
        """The title and the record's name: plain text (a file name may hold anything)."""
        title = t("review.title")
        return Text(f"{title}  {shown(self.record_title, 60)}" if self.record_title else title)

    def on_mount(self) -> None:
        self.query_one("#review-legend", Static).update(
            Text(t("review.legend", played="x", best="+", both="*")))
        self.start()

    # --- the work -----------------------------------------------------------------------------
    def cache(self) -> Path:
        return cache_file(self.game, getattr(self.app, "data_root", None))

    def budget(self) -> int:
        from ...players import review as rv

        return BUDGET or rv.BUDGET

    def start(self) -> None:
        from ...players import review as rv

        kept = rv.stored_review(self.data, self.game, self.cache(), budget=self.budget())
        if kept is not None:
            self.finish(kept)
            return
        self.running = True
        self.show_progress(0, 1)
        data, cancel, budget = self.data, self.cancel, self.budget()
        jobs = JOBS or os.cpu_count() or 1
        path, app = self.cache(), self.app

        def work() -> None:
            def progress(done: int, total: int) -> None:
                app.call_from_thread(self.show_progress, done, total)

            try:  # every decision is kept as it is judged: a cancelled review resumes from there
                result = rv.review(data, ["all"], budget=budget, jobs=jobs, progress=progress, cancel=cancel,
                                   game=self.game, store=path)
            except rv.Cancelled:
                return
            except Exception as err:  # noqa: BLE001 - a review must never end the app
                app.call_from_thread(self.failed, str(err))
                return
            app.call_from_thread(self.finish, result)

        self.run_worker(work, name="review", group="review", thread=True, exclusive=True, exit_on_error=False)

    def show_progress(self, done: int, total: int) -> None:
        if not self.is_attached or not self.running:
            return
        self.query_one("#review-progress").update(total=max(total, 1), progress=done)
        self.query_one("#review-status", Static).update(t("review.working", done=done, total=total))

    def failed(self, error: str) -> None:
        self.running = False
        if self.is_attached:
            self.query_one("#review-status", Static).update(Text(shown(t("review.failed", error=error), 300)))

    def finish(self, result: rv.Review) -> None:
        self.running = False
        if not self.is_attached:
            return
        self.result = result
        self.query_one("#review-working").display = False
        table = self.query_one("#review-seats")
        # Columns with their rows, in one go: a header drawn before the rows came would keep
        # the narrow widths of its labels for a frame (and a snapshot could catch it).
        table.clear(columns=True)
        table.add_columns(t("review.col.seat"), t("review.col.total"), t("review.col.mean"), t("review.col.marks"),
                          *(f"R{i + 1}" for i in range(len(self.game.rounds))))
        for seat in result.seats:
            counts = seat.marks()
            name = shown(seat.name, NAME_MAX) + ("" if seat.bot is None else f" ({shown(bot_label(seat.bot), 12)})")
            table.add_row(Text(name), local_number(seat.total_cost, 1), local_number(seat.mean_cost, 2),
                          f"{counts['inaccuracy']}/{counts['mistake']}/{counts['blunder']}",
                          *(local_number(c, 1) for c in seat.round_costs()), key=str(seat.seat))
        table.move_cursor(row=self.seat)
        self.show_seat()

    # --- showing a seat and a decision ---------------------------------------------------------
    def seat_review(self) -> rv.SeatReview | None:
        if self.result is None:
            return None
        return next((s for s in self.result.seats if s.seat == self.seat), None)

    def show_seat(self) -> None:
        seat = self.seat_review()
        if seat is None:
            return
        name = shown(seat.name, NAME_MAX)
        self.query_one("#review-chart-title", Static).update(Text(t("review.chart", name=name)))
        self.query_one("#review-chart").data = [d.cost for d in seat.decisions] or [0.0]
        table = self.query_one("#review-decisions")
        table.clear(columns=True)
        # The move played in words; the expert's best and the mark's reason are above the grid
        # (the words are too long for three moves in one row at 80 columns). The mark before the
        # words: at 80 columns the cost, last, may be cut; the mark never is (the chart and the
        # position above the grid give the cost too).
        table.add_columns(t("review.col.turn"), t("review.col.mark"), t("review.col.played"), t("review.col.cost"))
        points = self.result.points if self.result is not None else {}
        for d in seat.decisions:
            table.add_row(f"{d.round}.{d.flip}", SYMBOLS.get(d.mark, ""), move_words(points.get(d.place), d.played),
                          cost_words(d))
        if seat.decisions:
            first = next((i for i, d in enumerate(seat.decisions) if d.mark), 0)
            table.move_cursor(row=first)
            self.show_decision(first)
        else:
            self.query_one("#review-position", Static).update(t("review.none"))
            self.query_one("#review-grid", ReviewGrid).show({}, self.game.rules.splashes, {})

    def show_decision(self, row: int) -> None:
        seat = self.seat_review()
        if seat is None or not 0 <= row < len(seat.decisions):
            return
        decision = seat.decisions[row]
        point = self.points.get(decision.place)
        words = t("review.position", round=decision.round, flip=decision.flip, name=shown(seat.name, NAME_MAX),
                  played=move_words(point, decision.played), best=move_words(point, decision.best))
        if decision.mark:
            words += "\n" + t("review.position_mark", mark=mark_words(decision.mark), cost=cost_words(decision),
                               reason=reason_words(point, decision))
        self.query_one("#review-position", Static).update(Text(words))
        if point is not None:
            grid = self.query_one("#review-grid", ReviewGrid)
            grid.seat = point.seat
            grid.show(point.view.grid.cells, self.game.rules.for_round(point.round_index).splashes,
                      grid_marks(point.view.grid.cells, decision))

    def on_data_table_row_highlighted(self, event) -> None:
        if event.data_table.id == "review-decisions":
            self.show_decision(event.cursor_row)
        elif event.data_table.id == "review-seats" and self.result is not None:
            seat = self.result.seats[event.cursor_row].seat
            if seat != self.seat:
                self.seat = seat
                self.show_seat()

    # --- keys -----------------------------------------------------------------------------------
    def action_next_seat(self) -> None:
        if self.result is None or not self.result.seats:
            return
        seats = [s.seat for s in self.result.seats]
        self.seat = seats[(seats.index(self.seat) + 1) % len(seats)] if self.seat in seats else seats[0]
        self.query_one("#review-seats").move_cursor(row=seats.index(self.seat))
        self.show_seat()

    def action_next_mark(self) -> None:
        seat = self.seat_review()
        if seat is None:
            return
        table = self.query_one("#review-decisions")
        marked = [i for i, d in enumerate(seat.decisions) if d.mark]
        if marked:
            row = next((i for i in marked if i > table.cursor_row), marked[0])
            table.move_cursor(row=row)

    def action_help(self) -> None:
        """`?` here: what the figures and marks mean and this screen's keys, on the app's help
        screen (the table's help says nothing of the review). Found by its place: the help's
        module opens this one (`v`), and the rooms allow no cycle."""
        from ...players import review as rv

        thresholds = {name: local_number(value, 1) for name, value in rv.THRESHOLDS}
        sections = [(t("review.help.title"), t("review.help.text", z=f"{rv.Z:g}", **thresholds)),
                    (t("help.keys_title"), t("review.help.keys"))]
        self.app.push_screen(places.find("rules").screen(sections))

    def action_back(self) -> None:
        if self.running:
            self.cancel.set()
            self.running = False
            self.app.notify(t("review.cancelled"))
        self.dismiss()
