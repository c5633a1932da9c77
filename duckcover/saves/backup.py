"""A consistent copy of a data directory, taken while a server writes into it.

Two steps, so the moment that must not be interrupted is short:
1. `snapshot(root, into)`: what the directory holds at one instant, inside the same file system
   (`into` lies in `root`). Every file duckcover writes whole (records, tables, settings, bans,
   the host key: each written to a temporary file and renamed over the old one) is hard-linked:
   no later write changes a linked copy, since a write makes a new file. A SQLite database,
   changed in place, is copied with SQLite's backup API (a copy as of one transaction). The
   server takes the snapshot on its event loop, between two of its own writes.
2. `copy_out(snapshot, path)`: the snapshot copied to where the host wants it, at leisure.

Left out: sockets, FIFOs, devices and links (nothing duckcover keeps), lock files (they hold
no data), SQLite's journals (the backup holds their effect), and earlier snapshots.
"""
from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import stat
from pathlib import Path

SQLITE_HEADER = b"SQLite format 3\x00"
SNAPSHOT_PREFIX = ".backup-"  # a snapshot's folder, under serve/ while it is copied out
SKIPPED_SUFFIXES = (".lock", "-journal", "-wal", "-shm")


def is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def snapshot(root: Path, into: Path) -> int:
    """Make `into` (a new folder inside `root`) a copy of `root` as it is now; the number of
    files copied. OSError if a file cannot be linked or copied."""
    into.mkdir(mode=0o700)
    count = 0
    for folder, folders, files in os.walk(root):
        here = Path(folder)
        folders[:] = sorted(name for name in folders if not name.startswith(SNAPSHOT_PREFIX)
                            and not (here / name).is_symlink())
        target = into / here.relative_to(root)
        target.mkdir(mode=0o700, exist_ok=True)
        for name in sorted(files):
            source = here / name
            info = source.lstat()
            if not stat.S_ISREG(info.st_mode) or name.endswith(SKIPPED_SUFFIXES) or _temporary(name):
                continue
            if is_sqlite(source):
                copy_database(source, target / name)
            else:
                _link(source, target / name)
            count += 1
    return count


def _temporary(name: str) -> bool:
    """An atomic write's temporary file (`.<name>.XXXX.tmp`): not a file yet."""
    return name.startswith(".") and name.endswith(".tmp")


def _link(source: Path, target: Path) -> None:
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError as err:
        if err.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
            raise
        shutil.copy2(source, target, follow_symlinks=False)  # another file system, or no links there


def copy_database(source: Path, target: Path) -> None:
    """SQLite's online backup: the database as of one transaction, whatever writes go on."""
    src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()
    os.chmod(target, 0o600)


def copy_out(snap: Path, path: Path) -> int:
    """Copy a snapshot to `path` (which must not exist, or be an empty folder): folders mode
    0700 (the host key is in it); the number of files copied. OSError."""
    if path.exists():
        if not path.is_dir() or any(path.iterdir()):
            raise FileExistsError(errno.EEXIST, "exists and is not an empty folder")
        path.rmdir()
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(snap, path, symlinks=True)
    count = 0
    for folder, _, files in os.walk(path):
        os.chmod(folder, 0o700)
        count += len(files)
    return count
