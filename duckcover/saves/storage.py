"""Saved games: every unfinished game and the finished ones, as records in the user data directory.

Each unfinished game has its own file, `games/<start time>-<tag>.json`, rewritten after every
turn atomically (temp file + os.replace), so killing the terminal or losing an SSH connection
never leaves a half-written save, and starting a new game never replaces another one. A
finished game moves to `games/finished/<UTC timestamp>.json`. Games stay until the player
deletes them (the Games screen).

A game is owned by the process playing it: `claim()` takes an exclusive `flock` on
`games/.<name>.lock` for as long as the game is open, so a second duckcover on the same data
directory is told the game is in use instead of writing over it. The kernel drops the lock
when the process ends, however it ends (`kill -9` too).

Records read from here are untrusted like any other: read with a bound (record.read_file).
"""
from __future__ import annotations

import os
import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..common.files import LEFTOVER_AGE, atomic_write, private_folder, remove_leftovers
from ..engine.errors import Refusal
from .paths import data_dir
from .record import RecordError, dumps, read_file

FINISHED = "finished"
STAMP = "%Y%m%dT%H%M%S%fZ"

__all__ = ["atomic_write"]  # kept here too: older callers import it from storage


class GameInUse(RecordError):
    """The game is open in another duckcover (it holds the game's lock)."""


IN_USE = Refusal("game-in-use", "this game is open in another duckcover")


def games_dir(root: Path | None = None) -> Path:
    return (root or data_dir()) / "games"


def new_game_path(root: Path | None = None, now: datetime | None = None) -> Path:
    """A fresh file name for a game starting now (a random tag keeps two instances apart)."""
    stamp = (now or datetime.now(timezone.utc)).strftime(STAMP)
    return games_dir(root) / f"{stamp}-{secrets.token_hex(3)}.json"


# --- unfinished games --------------------------------------------------------------------------
def unfinished_paths(root: Path | None = None) -> list[Path]:
    """Every unfinished game's file, the most recently played first (the `current.json` of
    older versions among them)."""
    def played(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0

    try:
        paths = [p for p in games_dir(root).glob("*.json") if not p.name.startswith(".")]
    except OSError:
        return []
    return sorted(paths, key=lambda p: (played(p), p.name), reverse=True)


def has_unfinished(root: Path | None = None) -> bool:
    return bool(unfinished_paths(root))



def save_unfinished(record: dict, path: Path) -> Path:
    atomic_write(path, dumps(record))
    return path


def load(path: Path) -> dict:
    """A saved record; RecordError (naming the file) if it cannot be read."""
    try:
        return read_file(path)
    except RecordError as err:
        raise err.in_file(path.name) from None


def resume(record: dict):
    """The game a saved record describes, ready to continue exactly as it would have: the
    record keeps the seed, and forced flips come off the top of the realized deck."""
    from .record import replay

    game = replay(record)
    if not game.rounds:
        raise RecordError(Refusal("no-round-to-resume", "the record holds no round to continue"))
    return game


# --- who plays which game ------------------------------------------------------------------------
@dataclass
class Claim:
    """This process's hold on one game's file; `release()` (or the process ending) lets go."""

    path: Path
    fd: int | None

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing drops the flock
            self.fd = None

    def forget(self) -> None:
        """Release and remove the lock file (the game file is gone: finished or deleted)."""
        self.release()
        lock_path(self.path).unlink(missing_ok=True)


def lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


def claim(path: Path) -> Claim:
    """Own the game in `path` for this process. GameInUse if another process owns it; where
    locks cannot be taken (no fcntl, a read-only directory) the game is played unlocked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not a POSIX system
        return Claim(path, None)
    try:
        private_folder(path.parent)
        fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return Claim(path, None)  # saving will say what is wrong, once
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise GameInUse(IN_USE, file=path.name) from None
    return Claim(path, fd)


def in_use(path: Path) -> bool:
    """Whether another process holds the game (asked without taking it for long)."""
    try:
        claim(path).release()
    except GameInUse:
        return True
    return False


# --- finished games ------------------------------------------------------------------------------
def save_finished(record: dict, root: Path | None = None, now: datetime | None = None,
                  unfinished: Path | None = None) -> Path:
    """Keep a finished game and drop its unfinished save (`unfinished`, if it had one)."""
    stamp = (now or datetime.now(timezone.utc)).strftime(STAMP)
    path = games_dir(root) / FINISHED / f"{stamp}.json"
    atomic_write(path, dumps(record), durable=True)
    if unfinished is not None:
        unfinished.unlink(missing_ok=True)
    return path


def finished_paths(root: Path | None = None) -> list[Path]:
    """The finished games' records, newest first (their names are UTC timestamps)."""
    try:
        return sorted((games_dir(root) / FINISHED).glob("*.json"), reverse=True)
    except OSError:
        return []


def saved_paths(root: Path | None = None) -> list[Path]:
    """Every saved record: the unfinished games first (most recent first), then the finished ones."""
    return unfinished_paths(root) + finished_paths(root)


def finished_time(path: Path) -> datetime | None:
    """When a finished game was saved, from its file name; None for another name."""
    try:
        return datetime.strptime(path.stem, STAMP).replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def delete_saved(path: Path) -> None:
    """Delete one saved record. GameInUse if another duckcover is playing it; OSError if it cannot."""
    if path.parent.name != FINISHED and in_use(path):
        raise GameInUse(IN_USE, file=path.name)
    path.unlink(missing_ok=True)
    lock_path(path).unlink(missing_ok=True)


def clean(root: Path | None = None) -> None:
    """Remove what killed processes left: temporary files and the locks of games that are gone."""
    folder = games_dir(root)
    for where in (folder, folder / FINISHED, folder.parent):
        remove_leftovers(where)
    remove_leftovers(folder.parent, pattern="settings.json.tmp")  # what older versions left
    try:
        locks = list(folder.glob(".*.json.lock"))
    except OSError:
        return
    for lock in locks:
        game = lock.with_name(lock.name[1:].removesuffix(".lock"))
        try:
            # Young locks may belong to a game whose first save is on its way.
            stale = time.time() - lock.stat().st_mtime >= LEFTOVER_AGE
        except OSError:
            continue
        if stale and not game.exists() and not in_use(game):
            lock.unlink(missing_ok=True)
