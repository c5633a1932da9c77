"""`duckcover admin COMMAND`: the operator's console of a running `duckcover serve` (docs/serve.md).

It talks to the server over the admin socket in the server's data directory
(duckcover/net/admin.py), as the server's own user. Bad input, a server that is not running
or a command the server refuses: one line, exit status 2.
"""
from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path

from ..common.untrusted import LABEL_MAX, NAME_MAX, shown
from .numbers import duration

YEAR = 365 * 24 * 3600
CONNECT_TIMEOUT = 10.0  # seconds for the server to answer (it answers at once unless stuck)


def add_parser(sub) -> None:
    parser = sub.add_parser("admin", help="the host's console of a running duckcover serve",
                            description="Commands to a running `duckcover serve` on this machine, as its user.")
    parser.add_argument("--data-dir", type=Path, metavar="DIR",
                        help="the server's data directory (default: $DUCKCOVER_DATA, else the user's)")
    actions = parser.add_subparsers(dest="action", metavar="COMMAND", required=True)
    for name, words in (("sessions", "who is connected: name, door, address, since when, which table"),
                        ("tables", "every table: state, seats, who is there"),
                        ("bans", "the bans in force")):
        listing = actions.add_parser(name, help=words)
        listing.add_argument("--json", action="store_true", help="as JSON, for scripts")
    announce = actions.add_parser("announce", help="a one-line banner on every guest's screen")
    announce.add_argument("text", nargs="+", metavar="TEXT")
    kick = actions.add_parser("kick", help="end every session of a login name (a seat waits, as for a dropped player)")
    kick.add_argument("name", metavar="NAME")
    ban = actions.add_parser("ban", help="refuse an address, a network (203.0.113.0/24) or a login name, "
                                         "on every door, kept across restarts; ends their sessions")
    ban.add_argument("target", metavar="ADDRESS|NETWORK|NAME")
    ban.add_argument("--for", dest="seconds", type=duration(1, 10 * YEAR), metavar="DURATION",
                     help="for this long only: 90s, 30m, 12h, 7d, 2w (default: until unbanned)")
    unban = actions.add_parser("unban", help="lift a ban")
    unban.add_argument("target", metavar="ADDRESS|NETWORK|NAME")
    drain = actions.add_parser("drain", help="no new logins or tables; the running games end; then the server exits 0")
    drain.add_argument("--wait", action="store_true", help="return only once the server has exited (systemd's ExecStop)")
    backup = actions.add_parser("backup", help="a consistent copy of the data directory, taken while it runs")
    backup.add_argument("path", type=Path, metavar="PATH", help="a new folder (or an empty one)")
    parser.set_defaults(command="admin")


class Unreachable(Exception):
    """No server answers on the admin socket: one line."""


def fail(message: str) -> int:
    print(f"duckcover admin: {message}", file=sys.stderr)
    return 2


def run(args) -> int:
    from ..net.admin import socket_path
    from ..saves.paths import data_dir

    root = args.data_dir or data_dir()
    path = socket_path(root)
    try:
        if args.action == "backup":
            return backup(path, root, args.path)
        request = {"command": args.action}
        if args.action == "announce":
            request["text"] = " ".join(args.text)
        elif args.action == "kick":
            request["name"] = args.name
        elif args.action in ("ban", "unban"):
            request["target"] = args.target
            if args.action == "ban":
                request["seconds"] = args.seconds
        elif args.action == "drain":
            request["wait"] = args.wait
        with connect(path) as conn:
            answer = ask(conn, request)
            if not answer.get("ok"):
                return fail(shown(answer.get("error"), 300))
            show(args, answer)
            if args.action == "drain" and args.wait:
                conn.settimeout(None)
                while conn.recv(4096):  # the server closes it as it exits
                    pass
                print("the server has stopped", flush=True)
        return 0
    except Unreachable as err:
        return fail(str(err))


def connect(path: Path) -> socket.socket:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(CONNECT_TIMEOUT)
    try:
        conn.connect(str(path))
    except (FileNotFoundError, ConnectionRefusedError):
        conn.close()
        raise Unreachable(f"no duckcover serve is running on {shown(path.parent.parent)} "
                          f"(nothing answers at {shown(path)})") from None
    except PermissionError:
        conn.close()
        raise Unreachable(f"cannot reach {shown(path)}: permission denied; run this as the server's user "
                          "(sudo -u USER duckcover admin ...)") from None
    except OSError as err:
        conn.close()
        raise Unreachable(f"cannot reach {shown(path)}: {err.strerror or err}") from None
    return conn


def ask(conn: socket.socket, request: dict) -> dict:
    from ..net.admin import RESPONSE_MAX, encode

    try:
        conn.sendall(encode(**request))
        reply = conn.makefile("rb").readline(RESPONSE_MAX + 1)
        answer = json.loads(reply.decode("utf-8"))
        if not isinstance(answer, dict):
            raise ValueError
        return answer
    except (OSError, UnicodeDecodeError, ValueError):
        raise Unreachable("the server did not answer (is it stopping?)") from None


def show(args, answer: dict) -> None:
    data = answer.get("data")
    if getattr(args, "json", False):
        print(json.dumps(data, indent=1, ensure_ascii=False))
    elif args.action == "sessions":
        print_rows(["NAME", "DOOR", "ADDRESS", "SINCE", "TABLE"],
                   [[row.get("name"), row.get("door"), row.get("address"), when(row.get("since")), table_of(row)]
                    for row in data or []])
    elif args.action == "tables":
        print_rows(["ID", "NAME", "STATE", "ROUND", "SEATS", "WATCHING"],
                   [[row.get("id"), shown(row.get("name"), 32), row.get("state"),
                     "" if row.get("round") is None else f"{row['round']}.{row.get('turn')}",
                     seats_of(row), row.get("watchers")] for row in data or []])
    elif args.action == "bans":
        print_rows(["BANNED", "KIND", "UNTIL"],
                   [[row.get("target"), row.get("kind"), "unbanned" if row.get("until") is None else when(row["until"])]
                    for row in data or []])
    else:
        print(shown(answer.get("text"), 300))


def print_rows(head: list[str], rows: list[list]) -> None:
    if not rows:
        print("(none)")
        return
    cells = [[shown("" if cell is None else cell, LABEL_MAX) for cell in row] for row in [head, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(head))]
    for row in cells:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())


def when(stamp: object) -> str:
    if not isinstance(stamp, (int, float)):
        return "?"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))


def table_of(row: dict) -> str:
    if not row.get("table"):
        return "(lobby)"
    seat = row.get("seat")
    where = "watching" if seat is None else f"seat {seat + 1}" if isinstance(seat, int) else ""
    return f"{shown(row.get('table_name'), 32)} ({shown(row['table'], 16)}) {where}".rstrip()


def seats_of(row: dict) -> str:
    seats = row.get("seats") or []
    return ", ".join(shown(seat.get("name") or "(open)", NAME_MAX) + ("" if seat.get("here") else " (away)")
                     for seat in seats if isinstance(seat, dict))


def backup(path: Path, root: Path, target: Path) -> int:
    """Copy the snapshot the server takes to `target`; with no server running, a snapshot of
    the quiet directory is taken here."""
    import shutil
    import secrets

    from ..saves.backup import SNAPSHOT_PREFIX, copy_out, snapshot

    target = target.expanduser().absolute()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        return fail(f"{shown(target)} exists and is not an empty folder")
    if target == root.absolute() or root.absolute() in target.parents:
        return fail(f"{shown(target)} is inside the data directory; back it up somewhere else")
    try:
        with connect(path) as conn:
            answer = ask(conn, {"command": "backup", "path": str(target)})
            if not answer.get("ok"):
                return fail(shown(answer.get("error"), 300))
            snap = Path(answer["data"]["snapshot"])
            files = copy_out(snap, target)  # the server removes the snapshot once this closes
    except Unreachable:
        if not root.is_dir():
            return fail(f"no data directory at {shown(root)}")
        snap = root / "serve" / f"{SNAPSHOT_PREFIX}{secrets.token_hex(4)}"
        try:
            snap.parent.mkdir(parents=True, exist_ok=True)
            snapshot(root, snap)
            files = copy_out(snap, target)
        except OSError as err:
            return fail(f"cannot back up to {shown(target)}: {err.strerror or err}")
        finally:
            shutil.rmtree(snap, ignore_errors=True)
        print(f"no server running: copied {files} file(s) of {shown(root)} to {shown(target)}")
        return 0
    except (OSError, KeyError, TypeError) as err:
        return fail(f"cannot back up to {shown(target)}: {getattr(err, 'strerror', None) or err}")
    print(f"backed up {files} file(s) of {shown(root)} to {shown(target)}")
    return 0
