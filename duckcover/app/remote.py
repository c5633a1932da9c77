"""The table client of `duckcover serve`: the lobby, and the same table screen as local play.

One process per SSH session (started by duckcover.net.sshfront on its own pty). It connects
to the table server over a local socket, shows the lobby, and at a table keeps a *mirror* of
the game: an engine Game replayed from the table's public record (no seed, the deck in plain
order, Surprises' removed cards unknown: see docs/protocol.md) and moved on by the server's messages, flip by flip and reveal by reveal. The table
screen reads the mirror exactly as it reads a local game; only the flow differs: the Captain's
flip and this seat's choice go to the server, and the server says when everything is revealed.
"""
from __future__ import annotations

import asyncio
import gc
import os
import sys
import time
from collections import deque
from dataclasses import replace
from pathlib import Path

from textual.timer import Timer

from ..common.i18n import t
from ..common.untrusted import LABEL_MAX, NAME_MAX, shown
from ..engine.errors import DuckError
from ..engine.game import CHOOSING, Game, Phase
from ..net import protocol as p
from .app import DuckCoverApp
from .controller import TurnController
from ..players.sequence import Step
from .flow import Said, StatusChanged, TableFlow
from .options import SPEEDS, AppOptions, SeatSpec
from .render.textual_compat import CrashKept
from .screens.lobby import CreateTableScreen, LobbyScreen, WaitingScreen, level_ratings, seat_ordinal
from .table.screen import TableScreen
from ..common.telling import move_words, stand_in_words
from .words import peer_refusal_text


# --- the table, through the same interface as a local one ----------------------------------
class RemoteTable(TurnController):
    """A table on the server, as the plain table screen asks it: a TurnController whose game
    is the mirror of the server's table.

    The answers differ where the server decides: only this terminal's seat is "human here", no
    bot runs in this process, a submitted move and this seat's flip go to the server, and the
    flip, the reveal and the next deal are the server's: the flow's sequencer follows them
    (players.sequence, `follows`). A message waits only while the sequence has not reached the
    step it belongs to (a reveal still on screen for its pause, the scorepad not yet closed).
    It also keeps the server's status (who has chosen, the countdown) for the line under the
    prompt, and the seats' ratings."""

    settings_here = False  # the settings file is the host's, not a guest's to change
    follows = True
    MIRROR_EVENTS = (p.Flipped, p.Reveal, p.Round)

    def __init__(self, game: Game, seats: list[SeatSpec], my_seat: int | None, send) -> None:
        super().__init__(game, seats)
        self.my_seat = my_seat
        self.send = send
        self.status: dict = {}
        self.stood_in: list[int] = []  # seats whose move in the reveal a stand-in bot chose
        self.flow: TableFlow | None = None
        self.inbox: deque = deque()  # the server's flips, reveals and deals not yet due here
        self.early: list[p.Message] = []  # messages that came before the screen was up
        self.up = False
        self.flip_sent = False
        self.scorepad_done = False
        self.deadline: float | None = None
        self.clock: Timer | None = None  # the countdown's, once the screen is up
        self.chosen_for_me = None  # the move a stand-in chose for this seat while its player was away
        self.return_login: str | None = None  # a keyless player's `name+CODE`, once the server says it

    @property
    def humans(self) -> list[int]:
        return [] if self.my_seat is None else [self.my_seat]

    def is_human(self, seat: int) -> bool:
        return seat == self.my_seat

    def choice_opened(self) -> None:
        for seat in self.status.get("chosen", []):
            if seat == self.my_seat and self.chosen_for_me is not None:
                continue  # his stand-in's move: he may choose again while the turn is open
            if seat in self.views:
                self.chosen[seat] = None  # chosen before this screen existed (a reconnect)

    def submit(self, seat: int, move) -> None:
        super().submit(seat, move)  # the same check as at a local table, before it leaves
        self.send(p.Choose(move=p.move_to_json(move)))

    def fallback_lines(self) -> list[str]:
        """The server's marks on the revealed moves: a stand-in bot chose for an absent player."""
        seats, self.stood_in = self.stood_in, []
        return [stand_in_words(self.game.names[seat]) for seat in seats]

    # --- what the screen asks where the server decides --------------------------------
    def attach(self, flow: TableFlow) -> None:
        self.flow = flow
        # The countdown's clock runs only while there is a countdown: at a table without a time
        # limit a guest's process sleeps between messages.
        self.clock = flow.pace.set_interval(1.0, self.tick, pause=True)
        flow.pace.call_after_refresh(self.now_up)
        # Each step of the sequence may be the one a waiting message belongs to.
        flow.sequencer.listen(lambda _event: self.inbox and flow.pace.later(self.pump, 0))

    def flip_here(self) -> bool:
        if self.game.captain == self.my_seat and not self.flip_sent:
            self.send(p.Flip())
            self.flip_sent = True
        return False  # the server's "flip" brings it

    def round_may_start(self) -> bool:
        if self.game.over:
            return True  # Game over: nothing more comes from the server
        self.scorepad_done = True  # the next deal comes from the server
        self.pump()
        return False

    def joined_lines(self) -> list[str]:
        game, seat, move = self.game, self.my_seat, self.chosen_for_me
        if move is None or seat is None or game.phase not in CHOOSING:
            return []
        # Back mid-turn: the move the stand-in bot chose for this seat, before the reveal.
        words = move_words(game.names[seat], game.grid(seat), move, game.phase is Phase.PLACE)
        return [t("net.chosen_for_you", move=words)]

    def rating(self, seat: int) -> str | None:
        return seat_ordinal(self.status.get("players") or [], seat)

    # --- the server's messages ----------------------------------------------------------
    def now_up(self) -> None:
        self.up = True
        early, self.early = self.early, []
        for message in early:
            self.receive(message)
        self.pump()

    def receive(self, message: p.Message) -> None:
        if not self.up:
            self.early.append(message)
        elif isinstance(message, p.Status):
            self.status = p.to_json(message)
            seconds = message.seconds
            self.deadline = None if seconds is None else time.monotonic() + seconds
            if self.clock is not None:
                if self.deadline is None:
                    self.clock.pause()
                else:
                    self.clock.resume()
            self.flow.tell(StatusChanged())
        elif isinstance(message, p.Note):
            name = shown(message.name, NAME_MAX)
            if message.key == "code" and message.login is not None:
                self.return_login = shown(message.login, NAME_MAX + 8)  # the quit dialog and the parting line say it
            key = {"time": "net.played_for", "left": "net.disconnected", "back": "net.reconnected",
                   "code": "net.return_code", "seed": "net.fixed_deal"}.get(message.key)
            if key:
                self.flow.tell(Said(t(key, name=name, login=shown(message.login, NAME_MAX + 8),
                                      seed=shown(message.seed, 24))))
        elif isinstance(message, self.MIRROR_EVENTS):
            self.inbox.append(message)
            self.pump()

    def due(self, message: p.Message) -> bool:
        """Whether the sequence has reached the step the server's message belongs to."""
        step = self.flow.sequencer.step
        if isinstance(message, p.Flipped):
            return step in (Step.FLIPPING, Step.AWAIT_FLIP)
        if isinstance(message, p.Reveal):
            return step is Step.CHOOSING
        return step is Step.ROUND_OVER and self.scorepad_done

    def pump(self) -> None:
        while self.inbox and self.up and self.flow.pace.live() and self.due(self.inbox[0]):
            message = self.inbox.popleft()
            try:
                self.apply(message)
            except (DuckError, ValueError, KeyError, IndexError, TypeError, RuntimeError):
                self.inbox.clear()
                self.send(p.Sync())  # the mirror lost step: the server sends the whole table again
                return

    def apply(self, message: p.Message) -> None:
        flow = self.flow
        if isinstance(message, p.Flipped):
            self.flip_sent = False
            flow.sequencer.flip(*message.codes)
        elif isinstance(message, p.Reveal):
            game = self.game
            moves = [p.move_from_json(m, seat, game.n) for seat, m in enumerate(message.moves)]
            self.stood_in = sorted({s for s in message.standins if 0 <= s < game.n})
            # Everyone has chosen: nobody is thinking any more. Said here, the status line is
            # blank in the reveal's own frame, and the server's status that follows the reveal
            # changes nothing on screen (it had cost a second frame a reveal).
            self.status = {**self.status, "chosen": [], "thinking": []}
            flow.choice_taken()  # still choosing here: the time ran out
            flow.sequencer.reveal(moves)
            flow.tell(StatusChanged())
        elif isinstance(message, p.Round):
            from ..saves.record import _replay_round

            entry = message.round
            self.scorepad_done = False
            flow.sequencer.deal(lambda: _replay_round(self.game, self.game.round_index + 2, dict(entry, turns=[]),
                                                      unseen=True))

    # --- who has chosen, the countdown ------------------------------------------------
    def status_line(self, width: int) -> str:
        """Who is thinking, the time left, who is away, who has chosen, as much as fits. The
        line is always there (blank if nothing to say) and never wraps, so the prompt keeps
        its height and an update repaints that line only."""
        status = self.status
        names = [shown(name, NAME_MAX) for name in self.game.names]
        away = [i for i, s in enumerate(status.get("players") or []) if not s.get("connected", True)]
        parts = []
        for key, seats in (("net.thinking", status.get("thinking", [])), ("net.seconds", None),
                           ("net.away_names", away), ("net.chosen", status.get("chosen", []))):
            if seats is None and self.deadline is not None:
                parts.append(t(key, seconds=max(0, round(self.deadline - time.monotonic()))))
            elif seats:
                parts.append(t(key, names=", ".join(names[s] for s in seats if s < len(names))))
        line = ""
        for part in parts:
            longer = f"{line} | {part}" if line else part
            if len(longer) > width - 2:
                break
            line = longer
        return line

    def tick(self) -> None:
        if self.deadline is not None:
            self.flow.tell(StatusChanged())


# --- the app -----------------------------------------------------------------------------
ANNOUNCE_MAX = 200  # characters of the host's announcement shown (the server sends no more)
ANNOUNCE_SECONDS = 60  # how long it stays on screen


class RemoteApp(CrashKept, DuckCoverApp):
    """The client of one SSH session: no save, no statistics, no bots here (the server has them)."""

    def __init__(self, options: AppOptions, socket_path: str, token: str) -> None:
        super().__init__(replace(options, save=False, stats=False))
        self.socket_path = socket_path
        self.token = token
        self.user_name = ""
        self.lobby_tables: list[dict] = []
        self.top_players: list[dict] = []  # the server's top ten ("top" message)
        self.level_ratings: dict[str, float] = {}  # each difficulty's rating on the server ("top")
        self.writer: asyncio.StreamWriter | None = None
        self.table_screen: TableScreen | None = None
        self.remote_table: RemoteTable | None = None  # the table that screen shows
        self.create_when_left = False  # "n" after a game: the new table's screen, once back in the lobby
        self.crash: str | None = None  # the traceback of an error that ended the app, for the server's log (CrashKept)
        self.lobby_notes: list[str] = []  # what the server said of this login (a wrong code, a waiting seat)
        self.table_name: str | None = None  # the table this guest sits at, for the way back
        self.parting: str | None = None  # printed on the guest's terminal once the app has ended (main)
        # How this guest reached the server, for the way back (sshfront passes them).
        self.ssh_port, self.ssh_host = os.environ.get("DUCKCOVER_SSH_PORT", ""), os.environ.get("DUCKCOVER_SSH_HOST", "")

    def get_driver_class(self):
        driver = super().get_driver_class()
        if hasattr(driver, "direct"):  # (the lean driver, a class of its own per app)
            driver.direct = True  # frames written from the app's thread (lean_output.lean_driver)
        return driver

    def on_mount(self) -> None:
        self.title = t("app.title")
        self.apply_theme()
        self.run_worker(self.talk(), name="server", exclusive=True, exit_on_error=False)
        self.call_after_refresh(self.check_size)

    def save_game(self) -> None:
        pass  # the server keeps the record

    def game_open(self) -> bool:
        return False  # the game is the server's: nothing of the guest's is left to resume

    def go_title(self) -> None:
        self.send(p.Leave())  # after a game: back to the lobby

    def ssh_command(self, login: str) -> str:
        """The command that logs in as `login` again, as far as this client knows the server."""
        if self.ssh_port.isdigit() and self.ssh_host:
            return f"ssh -p {self.ssh_port} {login}@{shown(self.ssh_host, 64)}"
        return login

    def way_back(self, key: str) -> str | None:
        """How to come back to this guest's seat, in the words of `key` (net.way_back or
        net.parting): None unless seated at a game still going on. Without a key it is the
        return login; with one, the same name and key."""
        table = self.remote_table
        if table is None or table.my_seat is None or table.game.over or self.table_screen is None:
            return None
        name = self.table_name or "?"
        if table.return_login:
            return t(key, table=name, command=self.ssh_command(table.return_login))
        return t(key + "_key", table=name, command=self.ssh_command(self.user_name))

    def quit_note(self) -> str | None:
        return self.way_back("net.way_back")

    def exit(self, result=None, return_code: int = 0, message=None) -> None:
        # Leaving mid-game (q, or the server gone): the way back stays on the terminal after
        # the screen is gone, where the log that said it once has scrolled away.
        if self.parting is None:
            self.parting = self.way_back("net.parting")
        super().exit(result, return_code, message)

    def on_navigate(self, message) -> None:
        """Where a screen leads, for a guest: a new game is a new table, set up from the lobby;
        the local set-up, saved games, statistics and settings are the host's, never shown
        here. (The local app's handler must not run too: it pushed the local set-up screen,
        which the lobby then replaced while it was still being built, and the guest's session
        ended on a traceback.)"""
        message.prevent_default()
        message.stop()
        if message.place == "setup":
            self.create_when_left = True
            self.send(p.Leave())
        elif message.place == "title":
            self.send(p.Leave())
        elif message.place == "rules":
            self.action_help()
        elif message.place == "quit":
            self.exit()

    def send(self, message: p.Message) -> None:
        if self.writer is not None and not self.writer.is_closing():
            self.writer.write(p.encode_message(message))

    async def talk(self) -> None:
        try:
            reader, self.writer = await asyncio.open_unix_connection(self.socket_path, limit=p.SERVER_LINE_MAX + 1)
            self.send(p.Hello(token=self.token))
            while True:
                try:
                    message = await p.receive(reader, p.SERVER_MESSAGES, p.SERVER_LINE_MAX)
                except p.FieldError as err:  # a message this client cannot read: the whole table again
                    self.notify(shown(str(err), LABEL_MAX * 2), severity="error", markup=False)
                    self.send(p.Sync())
                    continue
                if message is None:
                    break
                try:
                    self.on_server(message)
                except Exception as err:  # noqa: BLE001 - one bad message must not end the session
                    self.notify(shown(f"{type(err).__name__}: {err}", LABEL_MAX * 2), severity="error")
                    self.send(p.Sync())
        except (OSError, p.ProtocolError):
            pass
        self.exit(message=t("net.lost"))

    def on_server(self, message: p.Message) -> None:
        if isinstance(message, p.Welcome):
            self.user_name = shown(message.name, NAME_MAX)
        elif isinstance(message, p.Lobby):
            self.lobby_tables = p.to_json(message.tables)  # (the lobby's screens read the JSON)
            if self.table_screen is None and not isinstance(self.main_screen(), WaitingScreen):
                lobby = self.main_screen()
                if isinstance(lobby, LobbyScreen):
                    lobby.show(self.lobby_tables)
                else:
                    self.replace_main(LobbyScreen())
        elif isinstance(message, p.Note) and self.remote_table is None:
            self.lobby_note(message)
        elif isinstance(message, p.Top):
            self.top_players = p.to_json(message.players)
            self.level_ratings = level_ratings(p.to_json(message.levels))
            lobby = self.main_screen()
            if isinstance(lobby, LobbyScreen) and lobby.is_mounted:
                lobby.show_top(self.top_players)
        elif isinstance(message, p.Seated):
            self.seated(message)
        elif isinstance(message, p.Left):
            self.table_screen = self.remote_table = None
            self.replace_main(LobbyScreen())
            if self.create_when_left:
                self.create_when_left = False
                self.push_screen(CreateTableScreen())
        elif isinstance(message, p.Error):
            self.notify(peer_refusal_text(p.to_json(message)), severity="error", markup=False)
        elif isinstance(message, p.Announce):
            self.announce(message)
        elif isinstance(message, p.Bye):
            self.say_bye(message)
        elif isinstance(message, p.Status) and isinstance(self.main_screen(), WaitingScreen):
            self.main_screen().show(p.to_json(message.players))
        elif self.remote_table is not None and self.table_screen is not None:
            with self.table_screen.painter.batch():  # what it changes: one write, as lines
                self.remote_table.receive(message)

    def say_bye(self, message: p.Bye) -> None:
        """The server ends this session (it stops, the host ended it, a ban): why, left on the
        guest's terminal once the screen is gone, and the way back to a seat that waits for
        her (none after a ban: that login cannot come back)."""
        text = peer_refusal_text(p.to_json(message), LABEL_MAX)
        way_back = None if message.code == "banned" else self.way_back("net.parting")
        self.parting = "\n".join(part for part in (f"duckcover: {text}", way_back) if part)
        self.exit(message=text)

    def announce(self, message: p.Announce) -> None:
        """The host's one line to every guest (`duckcover admin announce`), over whatever screen
        is up. The host's text still came over the wire: shown escaped, on one line, bounded."""
        text = shown(" ".join(message.text[:ANNOUNCE_MAX * 4].split()), ANNOUNCE_MAX)
        if text:
            self.notify(t("net.announce", text=text), severity="warning", timeout=ANNOUNCE_SECONDS, markup=False)

    def lobby_note(self, message: p.Note) -> None:
        """What the server says of this login before any table: kept on the lobby's screen."""
        key, name = message.key, shown(message.name, NAME_MAX)
        table = shown(message.table, 32)
        if key == "wrong-code":
            text = t("net.wrong_code", login=shown(message.login, NAME_MAX + 8), name=name)
        elif key == "seat-waits":
            text = t("net.seat_waits", table=table, name=name, command=self.ssh_command(f"{name}+CODE"))
        elif key == "seat-waits-key":
            text = t("net.seat_waits_key", table=table, name=name)
        else:
            return
        self.lobby_notes.append(text)
        lobby = self.main_screen()
        if isinstance(lobby, LobbyScreen) and lobby.is_mounted:  # (else its on_mount shows them)
            lobby.show_notes(self.lobby_notes)

    def main_screen(self):
        stack = [s for s in self.screen_stack[1:] if not s.is_modal]
        return stack[0] if stack else None

    def seated(self, message: p.Seated) -> None:
        from ..saves.record import replay

        record = message.record
        if record is None:
            self.table_screen = self.remote_table = None
            self.replace_main(WaitingScreen(p.to_json(message)))
            return
        game = replay(record, unseen=True)
        flips = message.pending_flips
        if flips:  # between the flip and the reveal (the engine refuses a flip out of turn)
            game.flip(*flips)
            gifts = message.pending_gifts
            if gifts and game.phase is Phase.GIFT:
                game.play([p.move_from_json(m, seat, game.n) for seat, m in enumerate(gifts)])
        players = message.players
        seats = [SeatSpec(name, players[i].bot if i < len(players) else None)
                 for i, name in enumerate(game.names)]
        my_seat = message.seat
        self.lobby_notes = []  # said of the login that came in: back in the lobby later, they are old news
        self.table_name = shown(message.table.name, 32)
        controller = RemoteTable(game, seats, my_seat, self.send)
        controller.status = p.to_json(message.status)
        self.controller = self.remote_table = controller
        options = replace(self.options, watch=my_seat is None)
        earlier = self.story_so_far(record, game) if game.history or game.round_index else []
        self.table_screen = TableScreen(controller, options, earlier)
        if my_seat is not None and message.your_move is not None:
            try:
                controller.chosen_for_me = p.move_from_json(message.your_move, my_seat, game.n)
            except (DuckError, ValueError, KeyError, IndexError, TypeError):
                pass  # a mark the log could not tell: the reveal still shows the move
        self.replace_main(self.table_screen)
        self.call_after_refresh(keep_out_of_collections)


def keep_out_of_collections() -> None:
    """Once a table is on screen: what is there now (its widgets, the game, the warm caches)
    lives as long as the table, so it is moved out of the collector's sight, after one full
    collection (frozen garbage would stay). A full collection of a guest's heap took 12-40 ms,
    now and then in the middle of a reveal: with 48 guests on two cores, the slow reveals."""
    gc.collect()
    gc.freeze()


def main() -> int:
    """The entry point the SSH front starts on each session's pty."""
    import fcntl
    import termios

    from ..common import i18n
    from ..saves.settings import load

    try:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)  # our pty is the controlling terminal: resizes reach us
    except OSError:
        pass
    socket_path, token = os.environ.get("DUCKCOVER_SOCKET", ""), os.environ.get("DUCKCOVER_TOKEN", "")
    data = os.environ.get("DUCKCOVER_DATA")
    speed = os.environ.get("DUCKCOVER_SPEED", "normal")  # the server's --speed
    options = AppOptions(speed=speed if speed in SPEEDS else "normal", data_dir=Path(data) if data else None,
                         save=False, stats=False)
    settings, problem = load(options.data_dir)
    i18n.set_language(os.environ.get("DUCKCOVER_LANG") or settings.lang or "en")
    from . import freeze_imports

    freeze_imports()  # as create_app does: the collector never walks Textual's own objects
    app = RemoteApp(options, socket_path, token)
    app.settings, app.settings_problem = settings, problem
    try:
        app.run()
    except Exception:  # noqa: BLE001 - one line for the guest whatever fails, the rest logged
        import traceback

        app.crash = app.crash or traceback.format_exc()
    if app.parting and not app.crash:
        print(app.parting, flush=True)  # the screen is gone: this line stays on the guest's terminal
    if app.crash:
        report_crash(app.crash, app.user_name, options.data_dir, os.environ.get("DUCKCOVER_LOG_FD"))
        print(t("net.crashed"), file=sys.stderr, flush=True)
        return CRASHED
    if app.return_code:
        return app.return_code
    return 0


CRASHED = 70  # EX_SOFTWARE
CRASH_LOG = "client-errors.log"
CRASH_LOG_MAX = 1024 * 1024  # a log that grows past this starts again: a crash loop fills no disk


def report_crash(crash: str, user: str, data_dir: Path | None, log_fd: str | None) -> None:
    """An error that ended a guest's app: its traceback appended to the server's
    serve/client-errors.log, and one line on the server's own stderr (the descriptor the
    SSH front lends each client), never on the guest's terminal."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    last = shown(crash.strip().splitlines()[-1] if crash.strip() else "error", 300)
    where = ""
    if data_dir is not None:
        path = data_dir / "serve" / CRASH_LOG
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            mode = "w" if path.exists() and path.stat().st_size > CRASH_LOG_MAX else "a"
            with path.open(mode, encoding="utf-8") as log:
                log.write(f"--- {stamp} {shown(user, NAME_MAX) or '?'}\n{crash}\n")
            where = f" (traceback in {path})"
        except OSError:
            pass
    if log_fd and log_fd.isdigit():
        from ..net.hostlog import ENV_VAR, HostLog

        HostLog(os.environ.get(ENV_VAR, "text")).fd_line(
            int(log_fd), "client-error", f"{shown(user, NAME_MAX) or '?'}'s game client stopped on an error: {last}{where}",
            guest=user or None)


if __name__ == "__main__":
    raise SystemExit(main())
