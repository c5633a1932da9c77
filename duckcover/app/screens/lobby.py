"""The screens of a guest of `duckcover serve` before a table: the lobby (the open tables and the
top ten), a new table's set-up, and the wait for its players. Everything they show came from the
server, so every name and number is checked and shown as text. The app they belong to is
app/remote.RemoteApp (`send`, `user_name`, `lobby_tables`, `top_players`)."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from ...common.i18n import t, tn
from ...common.untrusted import NAME_MAX, shown
from ...engine.errors import RulesError
from ...engine.rules import BOX_PLAYERS, MIN_PLAYERS
from ...net import protocol as p
from ...players.difficulty import DIFFICULTIES as BOTS
from ..widgets.footer import KeyFooter
from ..words import error_text, rating_number

DIFFICULTIES = tuple(BOTS)  # one list: duckcover/players/difficulty.py


def as_count(value) -> int:
    """A count the server sent (untrusted): a small whole number, else 0."""
    return value if type(value) is int and 0 <= value < 100 else 0


class LobbyScreen(Screen):
    """Open tables; create one, join a free seat, or watch."""

    BINDINGS = [
        Binding("c", "create", "net.create"),
        Binding("j", "join", "net.join"),
        Binding("w", "watch", "net.watch"),
        Binding("r", "refresh", "net.refresh"),
    ]

    CSS_PATH = "screens.tcss"

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict] = []

    def compose(self) -> ComposeResult:
        from textual.widgets import DataTable

        # The title stays above the list: a club's lobby at 80x24 with twenty tables scrolls them,
        # and the title (who you are here) must not scroll away with them.
        yield Static(Text(t("net.lobby_title", name=self.app.user_name), style="bold"), id="lobby-title")
        with VerticalScroll(id="lobby"):
            yield Static(id="lobby-notes")  # what the server said of this login: stays while the lobby does
            yield DataTable(id="tables", cursor_type="row", zebra_stripes=False)
            yield Static(t("net.lobby_help"), id="lobby-help", classes="dim")
            yield Static(id="top-ten")
        yield KeyFooter()

    def on_mount(self) -> None:
        from textual.widgets import DataTable

        table = self.query_one("#tables", DataTable)
        table.add_columns(t("net.col_table"), t("net.col_seats"), t("net.col_players"),
                          t("net.col_variants"), t("net.col_state"))
        self.built = True
        self.show(self.app.lobby_tables)
        self.show_top(self.app.top_players)
        self.show_notes(getattr(self.app, "lobby_notes", []))
        table.focus()

    def show(self, tables: list[dict]) -> None:
        from textual.widgets import DataTable

        self.tables = tables
        if not getattr(self, "built", False):
            return  # a list that came while the screen was being built: on_mount shows the latest
        grid = self.query_one("#tables", DataTable)
        grid.clear()
        for item in tables:
            grid.add_row(
                Text(shown(item.get("name"), 32)),
                f"{item.get('taken', 0)}/{item.get('seats', 0)}",
                t("net.humans_bots", humans=tn("net.humans", as_count(item.get("humans"))),
                  bots=tn("net.bots", as_count(item.get("bots")))),
                Text(", ".join([shown(v, 20) for v in item.get("variants", [])]
                               + ([t("net.fixed_seed", seed=shown(item["seed"], 24))] if "seed" in item else []))
                     or "-"),
                state_label(item),
            )
        self.query_one("#lobby-help", Static).update(t("net.lobby_help") if tables else t("net.lobby_empty"))

    def show_notes(self, notes: list[str]) -> None:
        """The server's words on this login (already escaped): a wrong code, a seat that waits."""
        box = self.query_one("#lobby-notes", Static)
        box.update(Text("\n".join(notes[-3:]), style="bold"))
        box.display = bool(notes)

    def show_top(self, players: list[dict]) -> None:
        """The server's ten best rated players (names from the network: shown as text), then
        each difficulty's rating here and what a rating means."""
        text = Text(t("net.top_title") + "\n", style="bold")
        rows = [item for item in players if isinstance(item, dict)][:10]
        for rank, item in enumerate(rows, start=1):
            ordinal, games = item.get("ordinal"), item.get("games")
            values = {"rank": rank, "name": shown(item.get("name"), NAME_MAX),
                      "ordinal": rating_number(ordinal) if _number(ordinal) else "?"}
            text.append((tn("net.top_line", games, **values) if type(games) is int  # a peer's number, or "?"
                         else t("net.top_line", count="?", **values)) + "\n")
        if not rows:
            text.append(t("net.top_empty") + "\n", style="dim")
        levels = getattr(self.app, "level_ratings", {})
        if levels:
            text.append("\n" + t("net.levels_title") + "\n", style="bold")
            for level in DIFFICULTIES:
                if level in levels:
                    text.append(f"  {level_choice(level, levels[level])}\n")
        text.append(t("rating.explained"), style="dim")
        self.query_one("#top-ten", Static).update(text)

    def chosen(self) -> dict | None:
        from textual.widgets import DataTable

        grid = self.query_one("#tables", DataTable)
        if not self.tables or grid.cursor_row is None or grid.cursor_row >= len(self.tables):
            return None
        return self.tables[grid.cursor_row]

    def on_data_table_row_selected(self, event) -> None:
        self.action_join()  # Enter on a row

    def action_join(self) -> None:
        table = self.chosen()
        if table is not None:
            self.app.send(p.Join(table=table["id"]))

    def action_watch(self) -> None:
        table = self.chosen()
        if table is not None:
            self.app.send(p.Watch(table=table["id"]))

    def action_refresh(self) -> None:
        self.app.send(p.AskLobby())

    def action_create(self) -> None:
        self.app.push_screen(CreateTableScreen())


class CreateTableScreen(Screen):
    """A new table: 2-7 seats, each open for a human or a bot of a difficulty; options, variants, seed."""

    BINDINGS = [
        Binding("escape", "back", "key.back"),
        Binding("ctrl+s", "create", "net.create"),
    ]

    CSS_PATH = "screens.tcss"
    MAX_SEATS = BOX_PLAYERS

    def __init__(self) -> None:
        super().__init__()
        self.seat_count = 4

    def compose(self) -> ComposeResult:
        from textual.widgets import Checkbox, Input, Label, Select

        from .core import rule_rows, seed_and_buttons

        levels = getattr(self.app, "level_ratings", {})
        kinds = [(t("net.open_seat"), "human")] + [(level_choice(d, levels.get(d)), d) for d in DIFFICULTIES]
        with VerticalScroll(id="setup"):
            yield Label(t("net.create_title"), classes="heading")
            with Horizontal(classes="setup-row"):
                yield Label(t("net.table_name"), classes="setup-label")
                yield Input(max_length=32, id="table-name")
            # Near the top: at 80x24 it shows without scrolling (below the seats and rules it did not).
            yield Checkbox(t("net.rated"), value=True, id="rated")
            with Horizontal(classes="setup-row"):
                yield Label(t("setup.players"), classes="setup-label")
                yield Select([(str(n), n) for n in range(MIN_PLAYERS, self.MAX_SEATS + 1)], value=self.seat_count,
                             allow_blank=False, id="players")
            for seat in range(self.MAX_SEATS):
                with Horizontal(classes="setup-row seat-row", id=f"seat-{seat}"):
                    yield Label(t("setup.seat", number=seat + 1), classes="setup-label")
                    if seat == 0:
                        yield Label(t("net.you_sit_here"), classes="seat-kind")
                    else:
                        yield Select(kinds, value="human" if seat == 1 else "medium", allow_blank=False,
                                     id=f"kind-{seat}", classes="seat-kind")
            yield from rule_rows()
            yield from seed_and_buttons(t("net.create"))
        yield KeyFooter()

    def on_mount(self) -> None:
        from textual.widgets import Input

        from .core import ascii_widgets

        ascii_widgets(self)  # plain borders where the terminal has no box glyphs
        self.show_seats()
        self.query_one("#table-name", Input).focus()  # keyboard first: Tab goes on from here
        if self.app.is_headless:
            self.query_one("#table-name", Input).cursor_blink = False

    def show_seats(self) -> None:
        for seat in range(self.MAX_SEATS):
            self.query_one(f"#seat-{seat}").display = seat < self.seat_count

    def on_select_changed(self, event) -> None:
        if event.select.id == "players" and isinstance(event.value, int):
            self.seat_count = event.value
            if self.is_mounted:
                self.show_seats()

    def on_button_pressed(self, event) -> None:
        self.action_create() if event.button.id == "start" else self.action_back()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_create(self) -> None:
        from textual.widgets import Checkbox, Input, Select

        from .core import chosen_rules

        seats = ["human"] + [str(self.query_one(f"#kind-{s}", Select).value) for s in range(1, self.seat_count)]
        try:
            rules = chosen_rules(self)
            rules.check_players(len(seats))
        except (RulesError, ValueError) as err:  # a bad "competition:9": said here, the screen stays
            self.app.notify(error_text(err), title=t("setup.invalid"), severity="error")
            return
        chosen = rules.to_json()
        options = {key: chosen[key] for key in ("max_by", "captain", "variant_rounds") if key in chosen}
        seed_text = self.query_one("#seed", Input).value.strip()
        seed = int(seed_text) if seed_text else None
        # No name given: "ann's table" in the creator's language (the server's own default is English).
        name = self.query_one("#table-name", Input).value.strip() or t("net.default_table", name=self.app.user_name)
        message = p.Create(name=name, seats=tuple(seats), variants=tuple(chosen["variants"]), options=options,
                           rated=self.query_one("#rated", Checkbox).value, seed=seed)
        self.app.pop_screen()
        self.app.send(message)


class WaitingScreen(Screen):
    """A table whose human seats are not all taken yet."""

    BINDINGS = [
        Binding("escape", "leave", "net.leave"),
    ]

    CSS_PATH = "screens.tcss"

    def __init__(self, snapshot: dict) -> None:
        super().__init__()
        self.snapshot = snapshot

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="lobby"):
            yield Static(id="waiting")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.shown_yet = True
        self.show(self.snapshot.get("status", {}).get("players", self.snapshot.get("players", [])))

    def show(self, players: list[dict]) -> None:
        self.snapshot["players"] = players
        if not getattr(self, "shown_yet", False):
            return  # on_mount shows them
        table = self.snapshot.get("table", {})
        text = Text(t("net.waiting_title", table=shown(table.get("name"), 32)) + "\n\n", style="bold")
        if "seed" in table:  # its creator may know the deal: everyone is told before it starts
            text.append(t("net.fixed_deal", seed=shown(table["seed"], 24)) + "\n\n")
        for number, seat in enumerate(players, start=1):
            if not seat.get("name"):
                text.append(f"{number}. {t('net.open_seat')}\n")
                continue
            # A bot by the one name every screen gives it ("Medium (greedy)"), a person as human.
            is_bot = seat.get("bot") in DIFFICULTIES
            kind = level_name(seat["bot"]) if is_bot else t("seat.human")
            ordinal = seat_ordinal(players, number - 1)
            if ordinal is not None:
                kind = t("net.rating_beside", kind=kind, ordinal=ordinal)
            name = shown(seat["name"], NAME_MAX)
            text.append(f"{number}. {name}: {kind}\n" if is_bot else f"{number}. {name} ({kind})\n")
        text.append("\n" + t("net.waiting_help"))
        self.query_one("#waiting", Static).update(text)

    def action_leave(self) -> None:
        self.app.send(p.Leave())


def seat_ordinal(players: list, seat: int) -> str | None:
    """A seat's rating as the server sent it (a number from the network: checked), or None."""
    item = players[seat] if 0 <= seat < len(players) and isinstance(players[seat], dict) else {}
    ordinal = item.get("ordinal")
    return rating_number(ordinal) if _number(ordinal) else None


def level_ratings(levels) -> dict[str, float]:
    """The difficulties' ratings a server sent (`top` message's `levels`: from the network,
    so only known levels with a sane number are kept)."""
    found = {}
    for item in levels if isinstance(levels, list) else []:
        if isinstance(item, dict) and item.get("level") in DIFFICULTIES and _number(item.get("ordinal")):
            found[item["level"]] = float(item["ordinal"])
    return found


def level_name(level: str) -> str:
    """A difficulty as every screen names it: the level and its bot ("Medium (greedy)")."""
    return t(f"difficulty.{level}", bot=BOTS[level])


def level_choice(level: str, ordinal: float | None) -> str:
    """A difficulty in the new table's seat list: with its rating on this server, as the local
    set-up screen offers it."""
    name = level_name(level)
    return name if ordinal is None else t("difficulty.with_rating", label=name, ordinal=rating_number(ordinal))


def _number(value) -> bool:
    return type(value) in (int, float) and abs(value) < 1e6


def state_label(item: dict) -> str:
    state = t(f"net.state_{item.get('state')}") if item.get("state") in ("open", "playing", "over") else "?"
    return state if item.get("rated", True) is not False else f"{state}, {t('net.unrated')}"
