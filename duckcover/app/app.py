"""The Textual app: screens around one TurnController, saving after every turn."""
from __future__ import annotations

import gc
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

# Only what the first table frame needs is imported up front: the other screens, saved games
# and the record format are imported where they are first used, so launch never waits for them.
from ..common.i18n import t
from ..engine.game import Game
from ..engine.rules import Rules
from . import places
from .bots import load_bot
from .controller import TurnController
from .messages import Navigate, SettingsSaved, StartGame
from .options import AppOptions, SeatSpec
from . import render
from .table.screen import TableScreen
from .widgets.core import GridWidget
from .widgets.glyphs import PlainKeys, adapt

MIN_WIDTH, MIN_HEIGHT = 80, 24
TIDY_DELAY = 1.0  # seconds from the start to tidying the data directory (see tidy_data)
COLLECT_DELAY = 1.0  # seconds from the start to collecting again, when the launch held it (commands/play.py)


class DuckCoverApp(PlainKeys, App):
    BINDINGS = [
        Binding("q", "request_quit", "key.quit"),
        Binding("question_mark", "help", "key.help", key_display="?"),
    ]
    CSS_PATH = "duckcover.tcss"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, options: AppOptions) -> None:
        super().__init__()
        self.options = options
        self.controller: TurnController | None = None
        adapt(self)  # ASCII borders and glyphs on a terminal without box drawing
        render.count_style_changes(self)  # the widgets keep their styles until one may change
        self._too_small = None  # the TooSmallScreen, while shown
        self.saver = ThreadPoolExecutor(max_workers=1, thread_name_prefix="duckcover-save")
        self.claim = None  # storage.Claim: this process owns the game being played
        self.tidied = False  # tidy_data submitted (once a run: see on_mount)
        self._save_problem: str | None = None  # the last save error told (told once, not per turn)

    def get_driver_class(self):
        """The terminal's driver, sending only the colour changes (see render.lean_output); a
        driver named in the environment (a web terminal...) is left as it is, and so is
        Textual's own output with DUCKCOVER_LEAN_OUTPUT=0 or DUCKCOVER_PAINTER=0."""
        from textual import constants

        base = super().get_driver_class()
        return base if constants.DRIVER is not None else render.driver_class(base)

    def get_default_screen(self) -> Screen:
        return render.default_screen()

    @property
    def data_root(self) -> Path | None:
        return self.options.data_dir

    # --- start --------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.title = t("app.title")
        if self.data_root is not None:  # a data directory of its own (--data, tests): no bot reads it either
            from ..players.confine import keep_private

            keep_private(str(self.data_root))
        problem = getattr(self, "settings_problem", None)  # set by create_app
        if problem:
            self.notify(t("settings.broken", error=problem), severity="warning", timeout=10)
        self.apply_theme()
        self.catch_signals()
        if not gc.isenabled():  # held for the launch: on again once the first frame is up
            self.set_timer(COLLECT_DELAY, gc.enable)
        if self.options.save:  # well after the first frame: launch waits for none of it, and
            # the saver's thread does not import SQLite while the first frame is being drawn
            self.set_timer(TIDY_DELAY, self.tidy_once)
        if self.options.speed == "instant":
            self.animation_level = "none"
        if self.options.resume:
            self.resume_game(self.options.resume_path)
        elif self.options.seats:
            self.start_game(self.options.seats, self.options.rules, self.options.seed)
        else:
            self.go_title()
        self.call_after_refresh(self.check_size)

    def apply_theme(self) -> None:
        """The player's colours from the settings; automatic: the terminal's own palette on a
        16-colour terminal (Textual's ANSI theme), Textual's dark theme elsewhere."""
        from ..saves.settings import THEMES

        chosen = getattr(getattr(self, "settings", None), "theme", None)  # set by create_app
        if chosen:
            self.theme = THEMES[chosen]
        elif not self.is_headless and getattr(self.console, "color_system", None) in ("standard", "windows"):
            self.theme = "ansi-dark"
        else:
            self.theme = "textual-dark"

    def make_controller(self, game: Game, seats: list[SeatSpec], key: bytes | None = None,
                        earlier_fallbacks: list | None = None) -> TurnController:
        if self.controller is not None:
            self.controller.close()  # the bots of the game left behind
        return TurnController(game, seats, loader=load_bot, key=key, named_bots=self.options.named_bots,
                              earlier_fallbacks=earlier_fallbacks or ())

    def start_game(self, seats: list[SeatSpec], rules: Rules, seed: int | None) -> None:
        from dataclasses import replace

        from ..common.untrusted import NAME_MAX, shown
        from ..players.harness import bot_key_for, new_bot_key, new_seed

        # Whoever named the seats (the command line, the set-up screen, one day a network peer),
        # a name at the table is printable and at most NAME_MAX characters.
        seats = [replace(s, name=shown(s.name, NAME_MAX)) for s in seats]
        # No seed given: 128 random bits (kept in the record), and a secret key for the bots'
        # coin flips. A given seed reproduces the whole game, so the key then comes from it.
        key = new_bot_key() if seed is None else bot_key_for(seed)
        game = Game([s.name for s in seats], rules, new_seed() if seed is None else seed)
        self.controller = self.make_controller(game, list(seats), key)
        self.own_game(None)  # the game played before is let go now; this one's file comes next
        # Its file is claimed and first written after the table's first frame (save_game gives
        # the game a file): launch waits neither for the record format nor for the disk. A turn
        # that ends sooner (a bot Captain at speed instant) saves, and so claims, first.
        self.call_after_refresh(self.first_save, self.controller)
        self.show_table()

    def first_save(self, controller: TurnController) -> None:
        """A new game's first save (see start_game), unless a turn has saved it already."""
        if controller is self.controller and self.claim is None and not controller.game.over:
            self.save_game()

    def own_game(self, claim) -> None:
        """Play the game in `claim.path` from now on, letting go of the one played before."""
        if self.claim is not None and self.claim is not claim:
            self.claim.release()
        self.claim = claim

    def resume_game(self, path: Path | None = None) -> None:
        """Continue the unfinished game in `path`, or the most recent one no other duckcover has."""
        from ..engine.errors import DuckError
        from ..players.harness import new_bot_key
        from ..players.safety import read_fallbacks
        from ..saves import storage
        from ..saves.record import RecordError, read_bot_key, read_players
        from .passplay import read_sounds
        from .screens.core import TitleScreen
        from .words import error_text

        try:
            path = path or most_recent_free(self.data_root)
            claim = storage.claim(path)
            try:
                if self.options.resumed is not None and path == self.options.resume_path:
                    # The command line has read and replayed it: not twice.
                    (record, game), self.options.resumed = self.options.resumed, None
                else:
                    record = storage.load(path)
                    game = storage.resume(record)
            except BaseException:
                claim.release()
                raise
        except (RecordError, DuckError) as err:
            self.notify(error_text(err), title=t("notify.resume_failed"), severity="error")
            if not self.screen_stack or len(self.screen_stack) < 2:
                self.push_screen(TitleScreen())
            return
        self.own_game(claim)
        names, bots = read_players(record)
        sounds = read_sounds(record) + [None] * len(names)  # Madness: each player's own word
        seats = [SeatSpec(n, b, s) for n, b, s in zip(names, bots, sounds)]
        self.controller = self.make_controller(game, seats, read_bot_key(record) or new_bot_key(), read_fallbacks(record))
        self.replace_main(TableScreen(self.controller, self.options, earlier=self.story_so_far(record, game)))

    @staticmethod
    def story_so_far(record: dict, game: Game) -> list[str]:
        """The resumed game's turns in words, as the replay viewer tells them (the log then
        reads on from where the game stopped). A record that resumed always tells its story."""
        from .screens.replay import build_timeline, story_lines

        return story_lines(build_timeline(record, final=game), record)

    def show_table(self) -> None:
        self.replace_main(TableScreen(self.controller, self.options))

    def back_to_the_game(self, game: Path | None = None) -> None:
        """The table of the game in progress; without one, the game to resume (as "resume")."""
        if self.controller is not None and not self.controller.game.over:
            self.show_table()
        else:
            self.offer_resume(game)

    def go_title(self) -> None:
        from .screens.core import TitleScreen

        if self.claim is not None:  # back at the title no game is being played
            self.claim.release()
            self.claim = None
        self.replace_main(TitleScreen())

    def replace_main(self, screen) -> None:
        """Make `screen` the one main screen (dropping modals), under the too-small notice if shown."""
        small = self._too_small is not None and self.screen is self._too_small
        if small:
            self.pop_screen()
        while len(self.screen_stack) > 2:
            self.pop_screen()
        if len(self.screen_stack) == 2:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)
        if small:
            from .screens.core import TooSmallScreen

            self._too_small = TooSmallScreen()
            self.push_screen(self._too_small)

    # --- where the screens lead: they post messages, the app picks the next screen ------
    def on_navigate(self, message: Navigate) -> None:
        self.way_to(message.place, message.game)()

    def way_to(self, place: str, game: Path | None = None) -> Callable[[], object]:
        """What going to `place` does (a place some screen module declares: see places); `game`:
        the game to resume. KeyError for a place nobody declared."""
        found = places.find(place)
        return lambda: found.go(self, game)

    # The screens are imported when first opened (or when the title lists them): launch never
    # waits for them. These keep the app's older ways in, each going through the place.
    def open_games(self) -> None:
        self.way_to("games")()

    def open_statistics(self) -> None:
        self.way_to("statistics")()

    def open_settings(self) -> None:
        self.way_to("settings")()

    def offer_resume(self, game: Path | None) -> None:
        """Resume `game`; without one, the only unfinished game, or let the player pick among
        several on the Games screen (most recent first)."""
        from ..saves import storage

        if game is None and len(storage.unfinished_paths(self.data_root)) > 1:
            self.open_games()
        else:
            self.resume_game(game)

    def open_setup(self) -> None:
        """The set-up for a new game, over the title (Back leads there), from anywhere."""
        from .screens.core import SetupScreen, TitleScreen

        if not isinstance(self.screen, TitleScreen):
            self.go_title()
        self.push_screen(SetupScreen())

    def on_start_game(self, message: StartGame) -> None:
        self.options.handover = message.handover
        self.start_game(message.seats, message.rules, message.seed)

    def on_settings_saved(self, message: SettingsSaved) -> None:
        """New settings in force: colours, then the language. A new language relabels the keys
        and builds the screen underneath again (every screen takes its words from `t()` when it
        is built): the table of the game in progress (it carries on from the game itself, like
        a resumed game), else the title."""
        from ..common import i18n
        from .screens.settings import SettingsScreen

        old_lang = i18n.language()
        self.settings = message.settings
        self.apply_theme()
        i18n.set_language(message.settings.lang or self.options.lang or i18n.detect())
        self.title = t("app.title")
        self.notify(t("settings.saved"))
        if i18n.language() == old_lang:
            if isinstance(self.screen, SettingsScreen):
                self.pop_screen()
        elif self.controller and not self.controller.game.over and any(
                isinstance(screen, TableScreen) for screen in self.screen_stack):
            self.show_table()
        else:
            self.go_title()

    # --- saving -------------------------------------------------------------------------
    def save_game(self) -> None:
        """The game so far as a record, atomically; a finished game goes to the archive."""
        ctl = self.controller
        if ctl is None or not self.options.save:
            return
        from ..saves import storage

        # Written before the next turn starts (a few ms, no fsync): a kill at any moment
        # after a turn finds that turn on disk. Only the statistics go to a thread.
        record = ctl.record()
        if self.claim is None:  # a new game (see start_game), or one handed over without a file (tests)
            self.own_game(storage.claim(storage.new_game_path(self.data_root)))
        try:
            if ctl.game.over:
                storage.save_finished(record, self.data_root, unfinished=self.claim.path)
                self.claim.forget()
                self.claim = None
            else:
                storage.save_unfinished(record, self.claim.path)
        except (OSError, ValueError) as err:  # ValueError: text that cannot be encoded
            problem = str(err)
            if problem != self._save_problem:  # a read-only directory fails every turn: say it once
                self.notify(t("notify.save_failed", error=problem), severity="error")
            self._save_problem = problem
        else:
            self._save_problem = None
        if ctl.game.over and self.options.stats:
            self.saver.submit(self.add_stats, record)

    def flush_saves(self) -> None:
        """Wait until the statistics of a finished game are written too."""
        self.saver.submit(lambda: None).result()

    def add_stats(self, record: dict) -> None:
        try:
            from ..saves import stats

            db = self.data_root / stats.DB_NAME if self.data_root else None
            stats.add_game(record, db)
        except Exception as err:  # noqa: BLE001 - statistics must never end a game
            self.tell_from_saver(t("notify.stats_failed", error=str(err)), "warning")

    def tell_from_saver(self, message: str, severity: str) -> None:
        try:
            self.call_from_thread(self.notify, message, severity=severity)
        except RuntimeError:  # the app has already closed: nobody to tell
            pass

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Every notification is text, never markup: many quote untrusted values (names, bot
        labels, record errors), and no message of ours needs markup. Control characters become
        visible placeholders (line breaks stay: a hint has several lines)."""
        from ..common.untrusted import shown

        text = "\n".join(shown(line, 500) for line in str(message).split("\n")[:20])
        super().notify(text, title=shown(title, 80), severity=severity, timeout=timeout, markup=False)

    def tidy_once(self) -> None:
        if not self.tidied:
            self.tidied = True
            self.saver.submit(self.tidy_data)

    def tidy_data(self) -> None:
        """At start, in the saver's thread: remove what killed processes left behind, and add to
        the statistics any finished game a kill kept out of them."""
        from ..saves import storage

        storage.clean(self.data_root)
        if not self.options.stats:
            return
        from ..saves import stats

        db = self.data_root / stats.DB_NAME if self.data_root else None
        try:
            stats.reconcile(storage.finished_paths(self.data_root), db)
        except Exception as err:  # noqa: BLE001 - statistics must never end a game
            self.tell_from_saver(t("notify.stats_failed", error=str(err)), "warning")

    def on_unmount(self) -> None:
        """The app is closing: the game stays saved and another duckcover may now open it. A
        run shorter than TIDY_DELAY tidies the data directory as it ends."""
        if self.controller is not None:
            self.first_save(self.controller)  # (a game ended before its first save is kept too)
        if self.options.save:
            self.tidy_once()
        if self.claim is not None:
            self.claim.release()

    # --- signals --------------------------------------------------------------------------
    def catch_signals(self) -> None:
        """SIGHUP (a dropped SSH connection) and SIGTERM end the app as Ctrl+Q does: the game is
        saved after every turn already, and exiting through Textual restores the terminal
        (alternate screen left, mouse tracking off, cursor shown)."""
        import asyncio
        import signal

        try:
            loop = asyncio.get_running_loop()
            for number in (signal.SIGHUP, signal.SIGTERM):
                loop.add_signal_handler(number, self.exit_on_signal, number)
        except (RuntimeError, NotImplementedError, ValueError, AttributeError):
            pass  # not the main thread, or no such signals here: the default applies

    def exit_on_signal(self, number: int) -> None:
        self.flush_saves_quietly()
        self.exit(return_code=128 + number)

    def flush_saves_quietly(self) -> None:
        try:
            self.saver.submit(lambda: None).result(timeout=5)
        except Exception:  # noqa: BLE001 - leaving is what matters now
            pass

    # --- around the game ----------------------------------------------------------------
    def action_help(self) -> None:
        from .screens.core import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_request_quit(self) -> None:
        from .screens.core import QuitScreen

        if isinstance(self.screen, QuitScreen):
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()

        self.push_screen(QuitScreen(self.game_open(), self.quit_note()), answered)

    def quit_note(self) -> str | None:
        """What the quit dialog says besides its question, where quitting leaves something
        (a guest's seat: how to come back); None: the default note."""
        return None

    def game_open(self) -> bool:
        """Whether an unfinished game of this player's is open and saved (what quitting leaves)."""
        return self.claim is not None and self.controller is not None and not self.controller.game.over

    def on_resize(self, event: events.Resize) -> None:
        # The event's size: this handler runs before the app takes the new size as its own
        # (reading self.size here missed the first shrink below 80x24).
        self.check_size(event.size)
        render.terminal_resized(self)

    def check_size(self, size=None) -> None:
        size = size or self.size
        small = size.width < MIN_WIDTH or size.height < MIN_HEIGHT
        if small and self._too_small is None:
            from .screens.core import TooSmallScreen

            self._too_small = TooSmallScreen()
            self.push_screen(self._too_small)
        elif not small and self._too_small is not None:
            if self.screen is self._too_small:
                self.pop_screen()
            self._too_small = None


def most_recent_free(root: Path | None) -> Path:
    """The most recently played unfinished game no other duckcover holds; RecordError if none."""
    from ..saves import storage
    from ..saves.record import RecordError

    paths = storage.unfinished_paths(root)
    if not paths:
        raise RecordError(t("notify.nothing_to_resume"))
    for path in paths:
        if not storage.in_use(path):
            return path
    raise storage.GameInUse(t("notify.game_in_use", game=paths[0].name))


# The table's package sits above the screens (it opens the round end, the game over...): the
# app declares its place, so that screens can lead back to it and list its keys.
places.place("table", TableScreen, go=lambda app, game: app.back_to_the_game(game), title="place.table",
             widgets=(GridWidget,))
