"""Reading and writing the user's files safely: bounded reads of regular files only, atomic writes,
and the cleaning of temporary files a killed process left behind.

A file named on the command line or found in the data directory is untrusted: it may be huge,
endless (`/dev/zero`, `/dev/urandom`) or a FIFO that never delivers. `read_bounded` opens it
without blocking, refuses anything but a regular file and never reads more than `limit` bytes.
"""
from __future__ import annotations

import os
import stat
import tempfile
import time
from pathlib import Path


class FileRefused(OSError):
    """A file that is not read: not a regular file, or larger than the limit. `str()` says why."""


def read_bounded(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. OSError (FileRefused) otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)  # non-blocking: opening a FIFO with no writer returns at once
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused("not a regular file")
        if info.st_size > limit:
            raise FileRefused(f"larger than {limit // 1024} KiB")
        chunks, size = [], 0
        while size <= limit:  # the size may have grown since fstat: read at most limit + 1
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > limit:
        raise FileRefused(f"larger than {limit // 1024} KiB")
    return b"".join(chunks)


def why(err: OSError) -> str:
    """One short reason for a file error (no path, no traceback)."""
    return str(err) if isinstance(err, FileRefused) else (err.strerror or str(err))


def private_folder(folder: Path) -> None:
    """Create `folder` and its missing parents readable by this user only (mode 0700): saves hold
    the round's deck and the seed. Folders that already exist keep their mode (the user's choice)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for each in reversed(missing):
        try:
            each.mkdir(mode=0o700)
        except FileExistsError:
            pass  # made meanwhile by another duckcover


def atomic_write(path: Path, text: str, durable: bool = False) -> None:
    """Write `text` to `path` so that a reader sees the old file or the new one, never a mix.

    The rename is atomic, so a killed process leaves one or the other (and at worst a
    `.<name>.*.tmp` file, which `remove_leftovers` cleans). `durable` also fsyncs, which only
    matters if the machine itself loses power; the per-turn save skips it to stay fast. Text
    that cannot be encoded (a lone surrogate) is written with a placeholder, never refused.
    """
    private_folder(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
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


LEFTOVER_AGE = 60.0  # seconds: a younger temporary file may be another instance's save in flight


def remove_leftovers(folder: Path, now: float | None = None, pattern: str = ".*.tmp") -> int:
    """Delete the temporary files a killed process left in `folder`; how many were removed."""
    now = time.time() if now is None else now
    removed = 0
    try:
        candidates = list(folder.glob(pattern))
    except OSError:
        return 0
    for path in candidates:
        try:
            if now - path.lstat().st_mtime >= LEFTOVER_AGE:
                path.unlink()
                removed += 1
        except OSError:
            pass
    return removed
