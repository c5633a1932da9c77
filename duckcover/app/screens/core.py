"""Everything around the table: title, setup, help, quit, round end, game end, too small."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Center, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.binding import Binding
from textual.widgets import Static

# The setup and title widgets (Select, Input, OptionList...) are imported where they are
# used: a game started from the command line opens straight on the table without them.

from ...common.i18n import local_number, t
from ...common.untrusted import NAME_MAX, name_problem, shown
from ...engine.errors import RulesError
from ...engine.rules import APP_VARIANTS, BOX_PLAYERS, MIN_PLAYERS, Rules, rules_with_variants
from ...players.difficulty import DIFFICULTIES, LADDER, nearest_level
from .. import places
from ..bots import installed_bots
from ..controller import TurnController
from ..messages import Navigate, StartGame
from ..options import BOT_NAMES, SeatSpec
from ...common.telling import is_you
from ..widgets.footer import KeyFooter
from ..widgets.glyphs import ascii_only
from ..words import error_text

SETUP_VARIANTS = APP_VARIANTS  # the app seats 2-7: no 8-9 player variant
MAX_SEATS = BOX_PLAYERS
SCOREPAD_EDGE_HEIGHT = 30  # below this many lines, the round end's tables lose their outer edges

TITLE_ART = r"""
 ____             _        ___     ____
|  _ \ _   _  ___| | __   ( _ )   / ___|_____   _____ _ __
| | | | | | |/ __| |/ /   / _ \/\| |   / _ \ \ / / _ \ '__|
| |_| | |_| | (__|   <   | (_>  <| |__| (_) \ V /  __/ |
|____/ \__,_|\___|_|\_\   \___/\/ \____\___/ \_/ \___|_|
"""


# The styles of the screens around the table: parsed when one of them first shows, not at launch.
SCREENS_CSS = "screens.tcss"


class TitleScreen(Screen):
    """The title and its menu: one line per place that asks for one (see places), each line's
    id the place it leads to."""

    CSS_PATH = SCREENS_CSS

    def compose(self) -> ComposeResult:
        from textual.widgets import OptionList
        from textual.widgets.option_list import Option
        with Vertical(id="title-box"):
            with Center():
                yield Static(TITLE_ART.strip("\n"), id="title-art")
            with Center():
                yield Static(t("title.tagline"), id="tagline")
            with Center():
                yield OptionList(*(Option(t(entry.menu.label), id=entry.name, disabled=not self.offered(entry))
                                   for entry in places.menu()), id="title-menu")
        yield KeyFooter()

    def offered(self, entry: places.Place) -> bool:
        offered = entry.menu.offered
        return offered is None or offered(getattr(self.app, "data_root", None))

    def on_screen_resume(self) -> None:
        """Back from another screen: what can be chosen may have changed (the game in progress
        deleted or saved on the Games screen)."""
        from textual.widgets import OptionList

        menu = self.query_one("#title-menu", OptionList)
        for entry in places.menu():
            if entry.menu.offered is not None:
                (menu.enable_option if self.offered(entry) else menu.disable_option)(entry.name)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.post_message(Navigate(event.option.id))

    def on_key(self, event) -> None:
        """A menu line's own key (MenuEntry.key) leads there, as choosing the line does."""
        for entry in places.menu():
            if entry.menu.key == event.key and self.offered(entry):
                event.stop()
                self.post_message(Navigate(entry.name))
                return


class SetupScreen(Screen):
    """2-7 seats (human or bot), the rules' options and variants, an optional seed."""

    BINDINGS = [
        Binding("escape", "back", "key.back"),
        Binding("ctrl+s", "start", "setup.start"),
    ]

    CSS_PATH = SCREENS_CSS
    AUTO_FOCUS = "#players"  # not the scrolling container: keys work at once

    def __init__(self, seats: int = 4) -> None:
        super().__init__()
        self.seat_count = seats

    def compose(self) -> ComposeResult:
        from textual.widgets import Input, Label, Select

        from . import setup_passplay as passplay
        self.standings = read_standings(self.app)
        kinds = [(t("seat.human"), "human"), *bot_choices(self.standings)]
        with VerticalScroll(id="setup"):
            yield Label(t("setup.title"), classes="heading")
            with Horizontal(classes="setup-row"):
                yield Label(t("setup.players"), classes="setup-label")
                yield Select([(str(n), n) for n in range(MIN_PLAYERS, MAX_SEATS + 1)], value=self.seat_count,
                             allow_blank=False, id="players")
            for seat in range(MAX_SEATS):
                with Horizontal(classes="setup-row seat-row", id=f"seat-{seat}"):
                    yield Label(t("setup.seat", number=seat + 1), classes="setup-label")
                    default = t("seat.you") if seat == 0 else BOT_NAMES[seat - 1]
                    yield Input(value=default, max_length=16, id=f"name-{seat}", classes="seat-name")
                    yield Select(kinds, value="human" if seat == 0 else "medium", allow_blank=False,
                                 id=f"kind-{seat}", classes="seat-kind")
                yield passplay.sound_row(seat)  # shown for a human seat under Madness
            yield passplay.handover_switch()  # shown once two seats are human
            yield Static(t("difficulty.ratings_explained"), id="ratings-explained", classes="dim")
            yield from rule_rows()
            yield from seed_and_buttons(t("setup.start"))
        yield KeyFooter()

    def on_mount(self) -> None:
        from textual.widgets import Input
        self.show_seats(self.seat_count)
        ascii_widgets(self)
        if self.app.is_headless:  # tests and screenshots: a blinking cursor never matches twice
            for field in self.query(Input):
                field.cursor_blink = False

    def show_seats(self, count: int) -> None:
        from .setup_passplay import show_passplay

        for seat in range(MAX_SEATS):
            self.query_one(f"#seat-{seat}").display = seat < count
        show_passplay(self, count)

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "players" and isinstance(event.value, int):
            self.seat_count = event.value
        if self.is_mounted and (event.select.id or "").startswith(("players", "kind-")):
            self.show_seats(self.seat_count)

    def on_checkbox_changed(self, event) -> None:
        if self.is_mounted and event.checkbox.id == "variant-madness":
            self.show_seats(self.seat_count)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()
        else:
            self.action_back()

    def action_back(self) -> None:
        self.app.pop_screen()

    def chosen(self) -> tuple[list[SeatSpec], Rules, int | None]:
        from textual.widgets import Input, Select

        from .setup_passplay import chosen_sound
        seats = []
        for seat in range(self.seat_count):
            name = self.query_one(f"#name-{seat}", Input).value.strip() or t("setup.seat", number=seat + 1)
            problem = name_problem(name)
            if problem:  # typed names are refused, not repaired (no control characters)
                raise ValueError(t("setup.bad_name", number=seat + 1, problem=problem))
            kind = self.query_one(f"#kind-{seat}", Select).value
            seats.append(SeatSpec(name, None if kind == "human" else str(kind), chosen_sound(self, seat)))
        if any(seat.bot == NEAR for seat in seats):
            level = self.near_level(next((s.name for s in seats if s.bot is None), seats[0].name))
            seats = [SeatSpec(s.name, level, s.sound) if s.bot == NEAR else s for s in seats]
        rules = chosen_rules(self)
        rules.check_players(len(seats))
        seed_text = self.query_one("#seed", Input).value.strip()
        return seats, rules, int(seed_text) if seed_text else None

    def near_level(self, name: str) -> str:
        """The ladder level closest to the rating of the player called `name` (the first human
        seat's), both as the statistics know them now: the numbers the seats' list shows. A
        player without a rating gets `medium`."""
        from ...saves.ratings import name_key

        standing = self.standings.get(name_key(name))
        level_mus = {level: level_rating_now(level, self.standings).mu for level in LADDER}
        return nearest_level(standing.rating.mu if standing else None, level_mus)

    def action_start(self) -> None:
        try:
            seats, rules, seed = self.chosen()
        except (RulesError, ValueError) as err:
            self.app.notify(error_text(err), title=t("setup.invalid"), severity="error")
            return
        names = [s.name for s in seats]
        if len(set(names)) != len(names):
            self.app.notify(t("setup.duplicate_names"), severity="error")
            return
        from .setup_passplay import handover_wanted

        self.post_message(StartGame(seats, rules, seed, handover_wanted(self)))


def seed_and_buttons(start: str) -> ComposeResult:
    """The set-up screens' last rows: the seed (read back as #seed), then `start` and Back."""
    from textual.widgets import Button, Input, Label

    with Horizontal(classes="setup-row"):
        yield Label(t("setup.seed"), classes="setup-label")
        yield Input(placeholder=t("setup.seed_hint"), type="integer", id="seed")
    with Horizontal(classes="setup-row buttons"):
        yield Button(start, variant="primary", id="start")
        yield Button(t("key.back"), id="back")


def rule_rows() -> ComposeResult:
    """The rows that choose the rules (what Max moves, the Captain, the variants): the same on
    the set-up screen and on a server's new-table screen, read back by their ids."""
    from textual.widgets import Checkbox, Input, Label, Select

    with Horizontal(classes="setup-row"):
        yield Label(t("setup.max_by"), classes="setup-label")
        yield Select([(t("setup.max_by.number"), "number"), (t("setup.max_by.splashes"), "splashes")],
                     value="number", allow_blank=False, id="max-by")
    with Horizontal(classes="setup-row"):
        yield Label(t("setup.captain"), classes="setup-label")
        yield Select([(t("setup.captain.rotate"), "rotate"), (t("setup.captain.fixed"), "fixed")],
                     value="rotate", allow_blank=False, id="captain")
    yield Label(t("setup.variants"), classes="heading")
    for name in SETUP_VARIANTS:
        yield Checkbox(t(f"variant.{name}"), id=f"variant-{name}", classes="variant")
    with Horizontal(classes="setup-row"):  # NAME:ROUNDS, like --variant (a name here needs no tick)
        yield Label(t("setup.variant_rounds"), classes="setup-label")
        yield Input(placeholder=t("setup.variant_rounds_hint"), max_length=80, id="variant-rounds")


def chosen_rules(screen) -> Rules:
    """The rules `rule_rows` show, read back: ticked variants play every round, unless the
    variant-rounds field names them with rounds ("competition:3 surprises:1,2").
    ValueError or RulesError with one readable line for bad input."""
    from textual.widgets import Checkbox, Input, Select

    limited = screen.query_one("#variant-rounds", Input).value.split()
    named = {spec.partition(":")[0].strip().lower() for spec in limited}
    ticked = [name for name in SETUP_VARIANTS if screen.query_one(f"#variant-{name}", Checkbox).value]
    return rules_with_variants(
        [name for name in ticked if name not in named] + limited,
        max_by=str(screen.query_one("#max-by", Select).value),
        captain=str(screen.query_one("#captain", Select).value),
    )


NEAR = "near"  # a seat's choice "near my rating": the ladder level it stands for is found at the start


def read_standings(app) -> dict:
    """Every rating the statistics know (ratings.Standing by key); {} when they cannot be read:
    statistics never stop a game from being set up."""
    from ...saves import stats

    root = getattr(app, "data_root", None)
    try:
        return stats.ratings(root / stats.DB_NAME if root else None)
    except Exception:  # noqa: BLE001 - a damaged database is the Statistics screen's to report
        return {}


def level_rating_now(level: str, standings: dict):
    """A difficulty's rating as the statistics know it now: its bot's published rating moved by
    the games played against it (ratings.bot_rating) - the number Statistics show for that bot."""
    from ...players.plugins import bot_identity
    from ...saves.ratings import bot_rating

    return bot_rating(*bot_identity(DIFFICULTIES[level]), standings)


def bot_choices(standings: dict | None = None) -> list[tuple[str, str]]:
    """Each bot once: "near my rating", the difficulties with the bot each stands for and the
    level's rating ("Medium (greedy) 29.4"), then any other installed bot."""
    behind = set(DIFFICULTIES.values())
    choices = [(t("difficulty.near"), NEAR)] + [(difficulty_label(level, standings or {}), level)
                                                 for level in DIFFICULTIES]
    return choices + [(t("setup.bot_named", name=name), name) for name in installed_bots() if name not in behind]


def difficulty_label(level: str, standings: dict) -> str:
    """A level as every screen names it, with its rating now (words.player_title, rating_number)."""
    from ...players.plugins import bot_identity
    from ...saves.ratings import bot_key
    from ..words import player_title, rating_number

    label = player_title(bot_key(*bot_identity(DIFFICULTIES[level])))
    return t("difficulty.with_rating", label=label, ordinal=rating_number(level_rating_now(level, standings).ordinal))


class HelpScreen(ModalScreen):
    """The rules in brief and the key map."""

    CSS_PATH = SCREENS_CSS

    # The help is longer than 80x24: it scrolls by keys whatever has the focus.
    BINDINGS = [Binding("escape,question_mark,q", "close", "key.close")] + [
        Binding(keys, f"scroll('{action}')", show=False)
        for keys, action in (("pagedown,space", "page_down"), ("pageup", "page_up"), ("down,j", "scroll_down"),
                             ("up,k", "scroll_up"), ("home", "scroll_home"), ("end", "scroll_end"))]

    def action_scroll(self, how: str) -> None:
        getattr(self.query_one("#help", VerticalScroll), f"action_{how}")()

    def __init__(self, sections: list[tuple[str | None, str]] | None = None) -> None:
        super().__init__()
        # A screen with a help of its own (the Review screen) gives its (heading or None, text)
        # pairs; by default, the rules in brief and the table's keys.
        self.sections = sections or [(t("help.title"), t("help.rules")), (t("help.keys_title"), t("help.keys_jump")),
                                     (None, t("help.keys"))]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            for heading, text in self.sections:
                if heading is not None:
                    yield Static(heading, classes="heading")
                yield Static(text)
        yield KeyFooter()

    def action_close(self) -> None:
        self.dismiss()


def answer_bindings(yes: str, no: str) -> list[Binding]:
    """A ConfirmScreen's keys, labelled by the UI text keys of its answers."""
    return [Binding("y", "answer(True)", yes), Binding("n,escape", "answer(False)", no)]


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question: y, n or Escape, or the buttons. Dismisses with the answer.
    A subclass names its answers (UI text keys) in YES and NO and its BINDINGS by answer_bindings."""

    CSS_PATH = SCREENS_CSS
    YES = NO = ""  # UI text keys: every subclass names its own

    def __init__(self, question: str, note: str | None = None, box_id: str = "confirm-box"):
        super().__init__()
        self.question, self.note, self.box_id = question, note, box_id
        self.yes, self.no = t(self.YES), t(self.NO)

    def compose(self) -> ComposeResult:
        from textual.widgets import Button

        from textual.content import Content

        with Vertical(id=self.box_id):
            yield Static(Content(self.question))  # it may quote names: text, never markup
            if self.note:
                yield Static(Content(self.note), classes="dim")
            with Horizontal(classes="buttons"):
                yield Button(self.yes, variant="error", id="yes")
                yield Button(self.no, id="no")

    def on_button_pressed(self, event) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class QuitScreen(ConfirmScreen):
    YES, NO = "quit.yes", "quit.no"
    BINDINGS = answer_bindings(YES, NO)

    def __init__(self, game_open: bool = True, note: str | None = None) -> None:
        # "saved after every turn" only where a game is open and saved (not at the title, not a
        # guest); a guest's seat is told how to come back instead (`note`)
        super().__init__(t("quit.question"), note or (t("quit.saved") if game_open else None), box_id="quit-box")


class TooSmallScreen(Screen):
    CSS_PATH = SCREENS_CSS

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")

    def on_mount(self) -> None:
        self.update_text()

    def on_resize(self) -> None:
        self.update_text()
        self.app.check_size()

    def update_text(self) -> None:
        size = self.app.size
        self.query_one("#too-small", Static).update(t("too_small", width=size.width, height=size.height))


def table_box():
    """Rich's usual table lines, or ASCII ones where the terminal cannot draw them."""
    from rich import box

    return box.ASCII if ascii_only() else box.HEAVY_HEAD


def ascii_widgets(screen: Screen) -> None:
    """On an ASCII terminal, the glyphs Textual's form widgets draw inside themselves (borders
    come from the style sheet): check boxes as [X], the list arrows as v and ^."""
    if not ascii_only():
        return
    from textual.widgets import Checkbox

    for box in screen.query(Checkbox):
        box.BUTTON_LEFT, box.BUTTON_RIGHT = "[", "]"
    for arrow, plain in ((".down-arrow", "v"), (".up-arrow", "^")):
        for static in screen.query(arrow):
            static.update(plain)


def card_values(ctl: TurnController, round_index: int, seat: int) -> str:
    """Each visible card's number and, where it is not the number, what it scores: `12(5)`."""
    grids, _, _ = ctl.game.table(round_index)
    rules = ctl.game.rules.for_round(round_index)  # Competition may score that round only
    stacks = sorted(grids[seat].items(), key=lambda item: (item[0][1], item[0][0]))
    if rules.scores_numbers:
        return " ".join(str(stack[-1].number) for _, stack in stacks)
    return " ".join(f"{stack[-1].number}({rules.value(stack[-1].number)})" for _, stack in stacks)


def round_heading(game, round_index: int) -> str:
    """A scorepad column: the round, and whether it scores card numbers (said before it is played)."""
    heading = t("score.round", round=round_index + 1)
    if game.rules.for_round(round_index).scores_numbers:
        heading += "\n" + t("score.numbers")
    return heading


def score_table(edge: bool = True, **kwargs) -> Table:
    """A table of scores; without its outer edge (`edge` False) it takes two lines fewer."""
    return Table(expand=False, box=table_box(), show_edge=edge, **kwargs)


def scorepad(ctl: TurnController, edge: bool = True) -> Table:
    game = ctl.game
    table = score_table(edge, title=t("score.title"), title_justify="left")
    table.add_column(t("score.player"))
    for index in range(game.rules.rounds()):
        table.add_column(round_heading(game, index), justify="right")
    table.add_column(t("score.total"), justify="right", style="bold")
    outcome = game.outcome()
    winners = set(outcome.winners) if outcome else set()
    for seat, name in enumerate(game.names):
        cells = [f"{result.scores[seat]:+d}" for result in game.results]
        cells += ["."] * (game.rules.rounds() - len(cells))
        label = f"{name} *" if seat in winners else name
        table.add_row(plain(label), *cells, str(game.totals[seat]))
    return table


def round_table(ctl: TurnController, edge: bool = True) -> Table:
    game = ctl.game
    index = len(game.results) - 1
    result = game.results[index]
    table = score_table(edge)
    table.add_column(t("score.player"))
    numbers = game.rules.for_round(index).scores_numbers
    table.add_column(t("score.visible_numbers" if numbers else "score.visible"))
    table.add_column(t("score.sign"), justify="center")
    table.add_column(t("score.score"), justify="right", style="bold")
    for seat, name in enumerate(game.names):
        sign = t("score.minus") if result.stacks[seat] == 1 else t("score.plus")
        # The score beside its sign word: "minus" and "+0" side by side contradicted each other.
        table.add_row(plain(name), card_values(ctl, index, seat), sign, local_number(result.scores[seat], signed=True))
    return table


def plain(text: str) -> Text:
    """A Rich table cell of untrusted text (a name): a `str` cell would be read as markup."""
    return Text(shown(text, NAME_MAX + 2))


class RoundEndScreen(ModalScreen):
    BINDINGS = [
        Binding("enter,space", "continue", "key.continue"),
    ]
    CSS_PATH = SCREENS_CSS

    def __init__(self, ctl: TurnController, auto: bool = False) -> None:
        super().__init__()
        self.ctl = ctl
        self.auto = auto

    def compose(self) -> ComposeResult:
        game = self.ctl.game
        index = len(game.results) - 1
        result = game.results[index]
        reason = t(f"reason.{result.reason}")
        if result.single_stack:
            reason += " (" + ", ".join(game.names[s] for s in result.single_stack) + ")"
        with Vertical(id="round-end"):
            with VerticalScroll(id="round-end-body"):
                yield Static(Text(t("round_end.title", round=index + 1, reason=reason), style="bold"))
                edge = self.app.size.height >= SCOREPAD_EDGE_HEIGHT  # a short screen: the lines go to players
                yield Static(round_table(self.ctl, edge))
                yield Static(scorepad(self.ctl, edge))
            # Outside the scrolling part: what to do next never hides below a scrollbar.
            yield Static(t("round_end.next") if not game.over else t("round_end.final"), id="round-end-next")
        yield KeyFooter()

    def on_mount(self) -> None:
        if self.auto:
            from ...players.sequence import PAUSES

            self.set_timer(max(0.05, PAUSES[self.app.options.speed].round), self.action_continue)

    def action_continue(self) -> None:
        if self.is_attached and self.app.screen is self:
            self.dismiss()


def winner_text(ctl: TurnController) -> str:
    game = ctl.game
    outcome = game.outcome()
    names = ", ".join(game.names[s] for s in outcome.winners)
    # One winner who is the player at the keyboard: "You win" (verbs agree with the subject).
    you = ".you" if len(outcome.winners) == 1 and is_you(game.names[outcome.winners[0]]) else ""
    if outcome.decided_by == "score":
        return t("game_over.winner" + you, names=names, total=outcome.totals[outcome.winners[0]])
    if outcome.decided_by == "team":
        return t("game_over.team", total=sum(outcome.totals))
    best = min(outcome.totals)
    tied = [s for s, total in enumerate(outcome.totals) if total == best]
    stacks = game.results[-1].stacks
    detail = ", ".join(f"{game.names[s]} {stacks[s]}" for s in tied)
    if outcome.decided_by == "fewest-cards":
        return t("game_over.tiebreak" + you, names=names, total=best, detail=detail)
    return t("game_over.shared", names=names, total=best, detail=detail)


class GameOverScreen(ModalScreen):
    BINDINGS = [
        # The game is over and saved: q quits without a question, n opens the set-up.
        Binding("n", "new_game", "key.new_game", priority=True),
        Binding("q", "quit", "key.quit", priority=True),
        Binding("v", "review", "review.key.review"),
    ]
    CSS_PATH = SCREENS_CSS

    def __init__(self, ctl: TurnController) -> None:
        super().__init__()
        self.ctl = ctl

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="game-over"):
            yield Static(Text(t("game_over.title"), style="bold"))
            yield Static(Text(winner_text(self.ctl), style="bold green"))
            yield Static(scorepad(self.ctl))
            yield Static(t("game_over.saved"), classes="dim")
        yield KeyFooter()

    def action_review(self) -> None:
        from .review import ReviewScreen

        self.app.push_screen(ReviewScreen(self.ctl.game, self.ctl.bot_specs()))

    def action_new_game(self) -> None:
        self.post_message(Navigate("setup"))

    def action_quit(self) -> None:
        self.post_message(Navigate("quit"))


# --- the places these screens lead to (see places) ----------------------------------------
def unfinished_game_saved(root) -> bool:
    from ...saves import storage

    return storage.has_unfinished(root)


places.place("title", TitleScreen, go=lambda app, game: app.go_title())
places.place("setup", SetupScreen, go=lambda app, game: app.open_setup(), menu=places.MenuEntry("title.new", 10))
places.place("resume", go=lambda app, game: app.offer_resume(game),
             menu=places.MenuEntry("title.resume", 20, offered=unfinished_game_saved))
places.place("rules", HelpScreen, go=lambda app, game: app.action_help(), menu=places.MenuEntry("title.rules", 60))
places.place("quit", go=lambda app, game: app.exit(), menu=places.MenuEntry("title.quit", 90))
