"""`duckcover arena --cluster ADDRESS`: the deals as tasks on a Dask distributed cluster.

Deals are independent and a deal's result depends on its seed alone, so the deals go out in
chunks (one task each), come back in any order, and are pooled by deal index: the figures are
those of the same run on one machine. A task lost with its worker is run again by the
scheduler on another; each chunk's result is taken once, by its index, so nothing counts twice.

Bots travel as their spec: a built-in name or a module path as it is (the workers have the same
installation), a file bot as its file's content and SHA-256, written once per worker under the
temporary directory and named by hash. On the worker each deal runs as in a local arena, each
bot that is not built in confined in a process of its own (duckcover.players.sandbox).

Dask is an optional extra (`pip install 'duckcover[cluster]'`), imported only here and only
when --cluster is given.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from .. import __version__
from .arena import ArenaConfig, DealResult, _play_chunk, chunk_size
from .plugins import DIFFICULTIES, _looks_like_file

FILE_LIMIT = 1 << 20  # bytes of a file bot that travels to the workers
CONNECT_TIMEOUT = 20.0  # seconds to reach the scheduler
START_LIMIT = 90.0  # seconds for a LoopbackCluster to come up on a loaded machine
MISSING = "--cluster needs Dask distributed: pip install 'duckcover[cluster]'"


class ClusterError(Exception):
    """The run cannot go to the cluster; the message is one line for the user."""


@dataclasses.dataclass(frozen=True)
class BotFile:
    name: str  # the file's own name, kept so a bot's messages read the same
    sha256: str
    content: bytes


def file_of(spec: str) -> tuple[str, str] | None:
    """(path, class name or "") if `spec` names a bot by file (as duckcover.players.plugins reads it)."""
    spec = DIFFICULTIES.get(spec.strip(), spec.strip())
    target, attr = spec, ""
    head, sep, tail = spec.rpartition(":")
    if sep and not _looks_like_file(tail):
        target, attr = head, tail
    return (target, attr) if _looks_like_file(target) else None


def pack_files(specs: tuple[str, ...]) -> dict[str, BotFile]:
    """The file bots of `specs` as they travel: spec -> BotFile."""
    files = {}
    for spec in dict.fromkeys(specs):
        found = file_of(spec)
        if found is None:
            continue
        path = Path(found[0]).expanduser()
        try:
            if path.stat().st_size > FILE_LIMIT:
                raise ClusterError(f"bot file {path.name} is larger than {FILE_LIMIT} bytes")
            content = path.read_bytes()
        except OSError as err:
            raise ClusterError(f"cannot read bot file {path.name}: {err.strerror}") from None
        files[spec] = BotFile(path.name, hashlib.sha256(content).hexdigest(), content)
    return files


def unpack_files(specs: tuple[str, ...], files: dict[str, BotFile], root: Path | None = None) -> tuple[str, ...]:
    """The specs as this worker runs them: each file bot written (once) under `root`, by hash."""
    root = Path(tempfile.gettempdir()) / "duckcover-cluster-bots" if root is None else root
    local = []
    for spec in specs:
        bot_file = files.get(spec)
        if bot_file is None:
            local.append(spec)
            continue
        if hashlib.sha256(bot_file.content).hexdigest() != bot_file.sha256:
            raise RuntimeError(f"bot file {bot_file.name} arrived damaged")
        folder = root / bot_file.sha256
        path = folder / bot_file.name
        if not path.is_file():
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            partial = folder / f".{uuid.uuid4().hex}.part"
            partial.write_bytes(bot_file.content)
            os.replace(partial, path)  # whole or not at all, even with two tasks at once
        attr = file_of(spec)[1]
        local.append(f"{path}:{attr}" if attr else str(path))
    return tuple(local)


def play_chunk_on_worker(config: ArenaConfig, start: int, stop: int, files: dict[str, BotFile],
                         version: str) -> list[DealResult]:
    """One task: deals start..stop-1 on a worker, as a local arena plays them."""
    if version != __version__:
        raise RuntimeError(f"a worker has duckcover {__version__}, this arena {version}: install the same on every worker")
    local = dataclasses.replace(config, specs=unpack_files(config.specs, files))
    return _play_chunk((local, range(start, stop)))


def run(config: ArenaConfig, address: str, progress: Callable[[int], None] | None = None,
        timeout: float | None = None) -> tuple[list[DealResult], dict]:
    """Every deal's result in deal order, and where it ran; ClusterError with one line when it
    cannot run there (no Dask, no scheduler, a task that failed). `timeout` bounds the whole run."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ClusterError(MISSING) from None
    files = pack_files(config.specs)
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise ClusterError(f"cannot reach the scheduler at {address}: {_first_line(err)}") from None
    try:
        workers = client.scheduler_info().get("workers", {})
        threads = sum(info.get("nthreads", 1) for info in workers.values()) or 1
        size = chunk_size(config.deals, threads)
        token = uuid.uuid4().hex[:8]
        futures = {
            client.submit(play_chunk_on_worker, config, start, min(start + size, config.deals), files, __version__,
                          key=f"duckcover-arena-{token}-{start}", pure=False): start
            for start in range(0, config.deals, size)
        }
        by_start: dict[int, list[DealResult]] = {}
        try:
            with client.as_current():  # as_completed looks for its client there
                for future in as_completed(futures, timeout=timeout):
                    start = futures.pop(future)  # the last reference but this one: the worker may free it
                    part = future.result()
                    future.release()
                    if start in by_start:  # a chunk is one future: it cannot come twice, but never count it so
                        continue
                    by_start[start] = part
                    if progress:
                        progress(len(part))
        except Exception as err:  # noqa: BLE001 - a task's error, a lost scheduler, the timeout
            for future in futures:
                future.cancel()
            raise ClusterError(f"the cluster run failed: {_first_line(err)}") from None
        results = [result for start in sorted(by_start) for result in by_start[start]]
        if [result.deal for result in results] != list(range(config.deals)):
            raise ClusterError("the cluster returned a different set of deals than it was given")
        return results, {"where": "cluster", "scheduler": address, "workers": len(workers), "threads": threads}
    finally:
        client.close()


class LoopbackCluster:
    """A scheduler and `workers` workers (one thread each) started as plain commands on this
    machine, listening on 127.0.0.1 only: for the tests and benchmarks/cluster.py, and the
    same commands docs/arena.md gives for a real cluster. `stop()` ends them."""

    def __init__(self, folder: Path, workers: int) -> None:
        self.folder = folder
        self.file = folder / "scheduler.json"
        self.env = {**os.environ, "TMPDIR": str(folder)}  # the workers' copies of file bots land here
        # Left behind by a killed test, the scheduler ends after 10 idle minutes, its workers 60 s later.
        self.scheduler = self._start("dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--idle-timeout", "600")
        # --no-nanny: a worker is one process, so killing it (the tests do) loses the worker.
        self.workers = [self._start("dask_worker", "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny",
                                    "--death-timeout", "60", "--local-directory", str(folder / f"w{i}"))
                        for i in range(workers)]
        try:
            self.address = self._address()
            self.wait_for_workers(workers)
        except BaseException:
            self.stop()
            raise

    def _start(self, command: str, *args: str) -> subprocess.Popen:
        with open(self.folder / f"{command}.log", "ab") as log:  # what Dask says, for when it fails
            return subprocess.Popen(
                [sys.executable, "-m", f"distributed.cli.{command}", *args, "--no-dashboard",
                 "--scheduler-file", str(self.file)],
                stdout=subprocess.DEVNULL, stderr=log, env=self.env,
            )

    def _address(self) -> str:
        deadline = time.monotonic() + START_LIMIT
        while time.monotonic() < deadline:
            try:
                return json.loads(self.file.read_text())["address"]
            except (OSError, ValueError, KeyError):
                time.sleep(0.2)
        raise RuntimeError(f"the scheduler did not start within {START_LIMIT:g} s")

    def client(self):
        from distributed import Client

        return Client(self.address, timeout=START_LIMIT, set_as_default=False)

    def wait_for_workers(self, count: int) -> None:
        with self.client() as client:
            client.wait_for_workers(count, timeout=START_LIMIT)

    def worker_count(self) -> int:
        with self.client() as client:
            return len(client.scheduler_info()["workers"])

    def stop(self) -> None:
        for process in [*self.workers, self.scheduler]:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=30)


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__
