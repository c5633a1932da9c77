"""The Statistics screen: per-player figures of the finished games, with bar charts, and one
player's rating over time (a sparkline of the rating after each rated game; `p` moves on to
the next player).

A database that cannot be read (corrupt, or written by a newer duckcover) is reported on the
screen with the StatsError's own line; the file is never touched and the app keeps running.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.binding import Binding
from textual.widgets import Static

from ...common.i18n import local_number, t, tn
from ...common.untrusted import shown
from .. import places
from ..widgets.footer import KeyFooter
from ..widgets.glyphs import ascii_only
from ..words import player_title, rating_change, rating_number

if TYPE_CHECKING:
    from ...saves import stats

# The statistics (and SQLite) are imported when the screen reads them: the title imports every
# screen module to list their places, and launch must not wait for a database module.

BAR_WIDTH = 30
NAME_WIDTH = 18  # a bot's one name ("Medium (greedy)", "Difficile (expert)") whole


def bar_char() -> str:
    """A full block draws solid bars; NO_COLOR asks for a plain look, and some terminals cannot
    draw blocks: plain ASCII there."""
    return "#" if os.environ.get("NO_COLOR") or ascii_only() else "\u2588"


def bar(value: float, largest: float, width: int = BAR_WIDTH) -> str:
    """A bar of `value` against `largest` (>= 0); any non-zero value gets at least one block."""
    if largest <= 0 or value == 0:
        return ""
    return bar_char() * max(1, round(abs(value) / largest * width))


def players_table(players: list[stats.PlayerStats]) -> Table:
    """One row per player, a bot by its one name (words.player_title)."""
    # One space between columns: the longest headings (German) still fit in 80 columns.
    table = Table(expand=False, pad_edge=False, box=None, header_style="bold", padding=(0, 1), collapse_padding=True)
    table.add_column(t("stats.player"), max_width=NAME_WIDTH, no_wrap=True)
    # No win-rate column (`duckcover stats` has it): the wins chart shows it, and 80 columns stay
    # enough; nor a rating column (the ratings chart below has it): with it German headings did not.
    for key in ("stats.games", "stats.wins", "stats.average", "stats.best_round",
                "stats.worst_round", "stats.single_stacks"):
        # A heading a word a line: with a bot's whole name ("Medium (greedy)") German headings on
        # one line do not fit in 80 columns, and Rich cuts a column rather than wrap its heading.
        table.add_column("\n".join(t(key).split()), justify="right")
    for p in players:
        table.add_row(Text(shown(player_title(p.key, p.name), NAME_WIDTH + 2)), str(p.games), str(p.wins),
                      local_number(p.average, 1), f"{p.best_round:+d}", f"{p.worst_round:+d}", str(p.single_stacks))
    return table


def chart(title: str, rows: list[tuple[str, float, str]]) -> Text:
    """`rows`: (name, value, label). Bars scale to the largest magnitude; negatives are marked '-'."""
    text = Text(title + "\n", style="bold")
    largest = max((abs(value) for _, value, _ in rows), default=0)
    for name, value, label in rows:
        sign = "-" if value < 0 else " "
        text.append(f"{shown(name, NAME_WIDTH):<{NAME_WIDTH}} {sign}")
        text.append(bar(value, largest), style="red" if value < 0 else "green")
        text.append(f" {label}\n")
    return text


SPARKS = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"
SPARKS_ASCII = "_.-:=+*#"
SPARK_WIDTH = 60


def sparkline(values: list[float], width: int = SPARK_WIDTH) -> str:
    """One character per point, higher is taller; more points than `width` are averaged in
    buckets (the last bucket ends on the latest value's). Plain ASCII where blocks cannot be drawn."""
    if not values:
        return ""
    marks = SPARKS_ASCII if os.environ.get("NO_COLOR") or ascii_only() else SPARKS
    if len(values) > width:
        edges = [round(i * len(values) / width) for i in range(width + 1)]
        values = [sum(values[a:b]) / (b - a) for a, b in zip(edges, edges[1:])]
    low, high = min(values), max(values)
    span = high - low
    return "".join(marks[0 if span == 0 else round((v - low) / span * (len(marks) - 1))] for v in values)


def rating_chart(standing) -> Text:
    """A player's rating after each rated game, where it stands now, and what the number means."""
    history = standing.history
    name = shown(player_title(standing.key), NAME_WIDTH + 2)
    text = Text(tn("statsview.rating_title", len(history), name=name) + "\n", style="bold")
    text.append(sparkline(history) + "\n", style="cyan")
    text.append(t("statsview.rating_range", now=rating_number(history[-1]), low=rating_number(min(history)),
                  high=rating_number(max(history)), change=rating_change(standing.change())))
    return text


def charts(players: list[stats.PlayerStats], standings: dict | None = None) -> Text:
    """Wins, the average score, and every player's rating now: for a bot the number the set-up
    screen offers it with (its published rating moved by the games here), explained below it."""
    from ...saves.ratings import current_rating

    names = [player_title(p.key, p.name) for p in players]
    text = chart(t("stats.chart_wins"), [(name, p.wins, str(p.wins)) for name, p in zip(names, players)])
    text.append("\n")
    text.append_text(chart(t("statsview.chart_average"),
                           [(name, p.average, local_number(p.average, 1)) for name, p in zip(names, players)]))
    rated = [(name, current_rating(p.key, standings or {})) for name, p in zip(names, players)]
    rated = sorted(((name, r) for name, r in rated if r is not None), key=lambda item: -item[1].ordinal)
    if rated:
        text.append("\n")
        text.append_text(chart(t("stats.ratings_title"),
                               [(name, r.ordinal, rating_number(r.ordinal)) for name, r in rated]))
        text.append(t("rating.explained") + "\n", style="dim")
    return text


class StatsScreen(Screen):
    """`stats.load()` as a table and two bar charts; Escape goes back."""

    BINDINGS = [
        Binding("escape", "back", "statsview.key_back"),
        Binding("r", "reload", "statsview.key_reload"),
        Binding("p", "next_rating", "statsview.key_next_rating"),
    ]

    CSS_PATH = "history.tcss"
    AUTO_FOCUS = "#stats-body"

    def __init__(self, db_path: Path | None = None) -> None:
        super().__init__()
        self.db_path = db_path
        self.error: str | None = None
        self.rated: list = []  # ratings.Standing, people first, best first
        self.standings: dict = {}  # ratings.Standing by key: the ratings chart reads it too
        self.rating_index = 0

    def compose(self) -> ComposeResult:
        yield Static(t("stats.title"), id="stats-title")
        with VerticalScroll(id="stats-body"):
            yield Static(id="stats-error")
            yield Static(id="stats-table")
            yield Static(id="stats-charts")
            yield Static(id="stats-rating")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.action_reload()

    def database(self) -> Path:
        from ...saves import stats

        if self.db_path is not None:
            return self.db_path
        root = getattr(self.app, "data_root", None)
        return Path(root) / stats.DB_NAME if root else stats.default_path()

    def read(self) -> tuple[list[stats.PlayerStats], int]:
        """The figures and the number of games; StatsError is the caller's to show."""
        from ...saves import stats

        path = self.database()
        players = stats.load(path)
        return players, len(stats.games(path)) if players else 0

    def action_reload(self) -> None:
        from ...saves import stats

        error = self.query_one("#stats-error", Static)
        table = self.query_one("#stats-table", Static)
        drawn = self.query_one("#stats-charts", Static)
        try:
            players, count = self.read()
            self.rated = self.read_ratings() if players else []
            self.error = None
        except stats.StatsError as err:
            players, count, self.error, self.rated, self.standings = [], 0, str(err), [], {}
        except Exception as err:  # noqa: BLE001 - the statistics must never bring the app down
            players, count, self.error, self.rated, self.standings = [], 0, f"{type(err).__name__}: {err}", [], {}
        error.display = self.error is not None
        error.update(Text(shown(t("statsview.error", error=self.error), 600)) if self.error else "")
        if players:
            table.update(players_table(players))
            drawn.update(charts(players, self.standings))
            drawn.display = True
            table.styles.margin = (1, 0, 0, 0)
            self.query_one("#stats-title", Static).update(f"{t('stats.title')}  {t('stats.footer', games=count)}")
        else:
            table.update("" if self.error else t("stats.empty"))
            drawn.display = False
        self.show_rating()

    def read_ratings(self) -> list:
        from ...saves import stats
        from ...saves.ratings import leaderboard

        board = self.standings = stats.ratings(self.database())
        return leaderboard(board, kinds=("human", "account")) + leaderboard(board, kinds=("bot",))

    def show_rating(self) -> None:
        widget = self.query_one("#stats-rating", Static)
        widget.display = bool(self.rated)
        if self.rated:
            self.rating_index %= len(self.rated)
            widget.update(rating_chart(self.rated[self.rating_index]))
            widget.styles.margin = (1, 0, 0, 0)

    def action_next_rating(self) -> None:
        if self.rated:
            self.rating_index += 1
            self.show_rating()

    def action_back(self) -> None:
        self.dismiss()


places.place("statistics", StatsScreen, menu=places.MenuEntry("title.statistics", 40))
