"""Saved games: the game in progress and finished games as records in the user data directory.

`games/current.json` is rewritten after every turn, atomically (temp file + os.replace), so
killing the terminal or losing an SSH connection never leaves a half-written save. A
finished game moves to `games/finished/<UTC timestamp>.json`.
"""
from __future__ import annotations

import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from .paths import data_dir
from .record import RecordError, dumps, loads

CURRENT = "current.json"
FINISHED = "finished"


def games_dir(root: Path | None = None) -> Path:
    return (root or data_dir()) / "games"


def current_path(root: Path | None = None) -> Path:
    return games_dir(root) / CURRENT


def atomic_write(path: Path, text: str, durable: bool = False) -> None:
    """Write `text` to `path` so that a reader sees the old file or the new one, never a mix.

    The rename is atomic, so a killed process leaves one or the other. `durable` also
    fsyncs, which only matters if the machine itself loses power; the per-turn save skips it
    to stay fast.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def save_current(record: dict, root: Path | None = None) -> Path:
    path = current_path(root)
    atomic_write(path, dumps(record))
    return path


def load_current(root: Path | None = None) -> dict | None:
    """The unfinished game's record, or None if there is none. RecordError if it is unreadable."""
    path = current_path(root)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        raise RecordError(f"{path}: cannot read: {err}") from None
    return loads(text)


def has_current(root: Path | None = None) -> bool:
    return current_path(root).is_file()


def save_finished(record: dict, root: Path | None = None, now: datetime | None = None) -> Path:
    """Keep a finished game and drop the in-progress save."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%S%fZ")
    path = games_dir(root) / FINISHED / f"{stamp}.json"
    atomic_write(path, dumps(record), durable=True)
    discard_current(root)
    return path


def discard_current(root: Path | None = None) -> None:
    try:
        current_path(root).unlink()
    except FileNotFoundError:
        pass


def finished_paths(root: Path | None = None) -> list[Path]:
    """The finished games' records, newest first (their names are UTC timestamps)."""
    return sorted((games_dir(root) / FINISHED).glob("*.json"), reverse=True)


def saved_paths(root: Path | None = None) -> list[Path]:
    """Every saved record: the game in progress first, then the finished ones, newest first."""
    current = [current_path(root)] if has_current(root) else []
    return current + finished_paths(root)


def finished_time(path: Path) -> datetime | None:
    """When a finished game was saved, from its file name; None for another name."""
    try:
        return datetime.strptime(path.stem, "%Y%m%dT%H%M%S%fZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def delete_saved(path: Path) -> None:
    """Delete one saved record (the game in progress or a finished game). OSError if it cannot."""
    path.unlink(missing_ok=True)


def resume(record: dict):
    """The game a saved record describes, ready to continue exactly as it would have: the
    record keeps the seed, and forced flips come off the top of the realized deck."""
    from .record import replay

    return replay(record)
