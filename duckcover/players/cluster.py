"""`duckcover arena --cluster ADDRESS`: the deals as tasks on a Dask distributed cluster.

Deals are independent and a deal's result depends on its seed alone, so the deals go out in
chunks (one task each), come back in any order, and are pooled by deal index: the figures are
those of the same run on one machine. A task lost with its worker is run again by the
scheduler on another; each chunk's result is taken once, by its index, so nothing counts twice.
A task that kills every worker it lands on is given up by the scheduler (KilledWorker), and a
cluster left with no worker is given up here: either stops the run with one line naming the bots.

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
from collections.abc import Callable, Iterator
from pathlib import Path

from .. import __version__
from .arena import ArenaConfig, DealResult, _play_chunk, chunk_size, suspects
from .plugins import DIFFICULTIES, _looks_like_file

FILE_LIMIT = 1 << 20  # bytes of a file bot that travels to the workers
CONNECT_TIMEOUT = 20.0  # seconds to reach the scheduler
WATCH = 5.0  # seconds between looks at the cluster's workers while no task finishes
# Seconds the cluster may have no worker at all before the run stops. Long enough for killed
# workers to be restarted by their nanny, or for an autoscaler to bring new ones.
NO_WORKER_LIMIT = 120.0
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
        from distributed import Client, KilledWorker
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
            with client.as_current():  # distributed.wait looks for its client there
                for future in _as_they_finish(client, config, list(futures), timeout):
                    start = futures.pop(future)  # the last reference but this one: the worker may free it
                    try:
                        part = future.result()
                    except KilledWorker as err:
                        raise ClusterError(_killed_line(config, start, min(start + size, config.deals), err)) from None
                    future.release()
                    if start in by_start:  # a chunk is one future: it cannot come twice, but never count it so
                        continue
                    by_start[start] = part
                    if progress:
                        progress(len(part))
        except ClusterError:
            _cancel(futures)
            raise
        except Exception as err:  # noqa: BLE001 - a task's error, a lost scheduler
            _cancel(futures)
            raise ClusterError(f"the cluster run failed: {_first_line(err)}") from None
        results = [result for start in sorted(by_start) for result in by_start[start]]
        if [result.deal for result in results] != list(range(config.deals)):
            raise ClusterError("the cluster returned a different set of deals than it was given")
        return results, {"where": "cluster", "scheduler": address, "workers": len(workers), "threads": threads}
    finally:
        client.close()


def _cancel(futures) -> None:
    for future in futures:
        future.cancel()


def _killed_line(config: ArenaConfig, start: int, stop: int, err: BaseException) -> str:
    """KilledWorker: the scheduler ran a task on allowed-failures + 1 workers and each died."""
    tries = getattr(err, "allowed_failures", None)
    times = f"{tries + 1} workers" if isinstance(tries, int) else "every worker"
    return (f"deals {start}-{stop - 1} ended {times} they ran on (Dask's allowed-failures), so the run stopped "
            f"without figures; {suspects(config)}")


def _as_they_finish(client, config: ArenaConfig, futures: list, timeout: float | None) -> Iterator:
    """`futures` as they finish, each once. ClusterError when `timeout` seconds have passed, or
    when the cluster has had no worker for NO_WORKER_LIMIT seconds: the scheduler waits for new
    workers forever, and a bot that kills each worker it runs on leaves none where nothing
    restarts them (workers started without a nanny)."""
    from distributed import wait

    deadline = None if timeout is None else time.monotonic() + timeout
    without_workers_since: float | None = None
    pending = set(futures)
    while pending:
        look = WATCH if deadline is None else max(0.0, min(WATCH, deadline - time.monotonic()))
        try:
            done, pending = wait(list(pending), timeout=look, return_when="FIRST_COMPLETED")
        except TimeoutError:
            done = set()
        yield from done
        now = time.monotonic()
        if pending and deadline is not None and now >= deadline:
            raise ClusterError(f"the run did not finish within {timeout:g} s")
        if done:
            continue
        if client.scheduler_info().get("workers"):
            without_workers_since = None
        elif without_workers_since is None:
            without_workers_since = now
        elif now - without_workers_since >= NO_WORKER_LIMIT:
            raise ClusterError(f"the cluster has had no worker for {NO_WORKER_LIMIT:g} s, so the run stopped "
                               f"without figures; if its workers were killed, {suspects(config)}")


class LoopbackCluster:
    """A scheduler and `workers` workers (one thread each) started as plain commands on this
    machine, listening on 127.0.0.1 only: for the tests and benchmarks/cluster.py, and the
    same commands docs/arena.md gives for a real cluster. `stop()` ends them."""

    def __init__(self, folder: Path, workers: int, nanny: bool = False, allowed_failures: int | None = None) -> None:
        self.folder = folder
        self.file = folder / "scheduler.json"
        self.env = {**os.environ, "TMPDIR": str(folder)}  # the workers' copies of file bots land here
        if allowed_failures is not None:  # deaths of a task's workers before the scheduler gives it up
            self.env["DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES"] = str(allowed_failures)
        # Left behind by a killed test, the scheduler ends after 10 idle minutes, its workers 60 s later.
        self.scheduler = self._start("dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--idle-timeout", "600")
        # --no-nanny: a worker is one process, so killing it (the tests do) loses the worker. With
        # a nanny (as `dask worker` runs by default) a killed worker is started again.
        self.nanny = nanny
        self.workers = [self._start("dask_worker", "--host", "127.0.0.1", "--nthreads", "1",
                                    "--nanny" if nanny else "--no-nanny",
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
        if self.nanny:  # asked, a nanny ends its worker process; killed, it would leave it behind
            for process in self.workers:
                if process.poll() is None:
                    process.terminate()
            for process in self.workers:
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    pass
        for process in [*self.workers, self.scheduler]:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=30)


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__
