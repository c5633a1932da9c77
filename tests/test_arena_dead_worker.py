"""A bot that ends the process playing its deals: `arena --jobs 2` stops by itself with one
line naming the bot and exit status 2 (docs/arena.md, "A dead worker"), never waits forever.

Written as the attacker: a `--trusted` file bot runs in the worker's own process (a built-in or
trusted bot is called there; the others play from a confined process of their own), so it can
end that process as a bot that got through its walls would: SIGKILL, or a CPU limit that the
kernel enforces later, during whichever bot's turn.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from duckcover.players.confine import available

from duckcover.players.arena import ArenaConfig, run, suspects
from duckcover.players.plugins import BotLoadError

RUN_LIMIT = 180.0  # seconds for a run that must end by itself: two spawned workers on a loaded machine

# The first worker to claim the flag file ends itself; the others write down their pid and play
# on, so the test can see that the arena ended them too. Without a flag file, every worker does.
KILLER = """
import os, resource, signal
from duckcover.players.bot import Bot

FLAG = {flag!r}
PIDS = {pids!r}
HOW = {how!r}

class WorkerKiller(Bot):
    description = "Ends the process it runs in at its first decision (the first worker only)."
    armed = None

    def choose(self, view):
        if WorkerKiller.armed is None and FLAG is None:
            WorkerKiller.armed = True
        if WorkerKiller.armed is None:
            try:
                os.close(os.open(FLAG, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                WorkerKiller.armed = True
            except FileExistsError:
                WorkerKiller.armed = False
                open(os.path.join(PIDS, str(os.getpid())), "w").close()
            if WorkerKiller.armed and HOW == "cpu-limit":
                used = resource.getrusage(resource.RUSAGE_SELF)
                limit = int(used.ru_utime + used.ru_stime) + 1  # SIGXCPU within a second of CPU
                resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))
        if WorkerKiller.armed and HOW == "sigkill":
            os.kill(os.getpid(), signal.SIGKILL)
        if WorkerKiller.armed and HOW == "cpu-limit":
            sum(range(1_000_000))  # some 20 ms of CPU a decision: the limit is reached within its chunks
        return view.legal_moves()[0]
"""


def killer_bot(folder: Path, how: str, every_worker: bool = False) -> tuple[Path, Path]:
    pids = folder / "pids"
    pids.mkdir()
    path = folder / "killer.py"
    flag = None if every_worker else str(folder / "claimed")
    path.write_text(KILLER.format(flag=flag, pids=str(pids), how=how))
    return path, pids


def cluster_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "cluster"  # apart from the bot's pid folder: the scheduler's logs and files
    folder.mkdir()
    return folder


def arena(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "duckcover", "arena", *argv], capture_output=True, text=True,
                          timeout=RUN_LIMIT)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.keys  # starts the arena and its spawned workers
@pytest.mark.parametrize("how, killed_by", [("sigkill", "SIGKILL"), ("cpu-limit", "SIGXCPU")])
def test_jobs_2_stops_with_one_line_naming_the_bot_that_killed_its_worker(tmp_path, how, killed_by):
    bot, pids = killer_bot(tmp_path, how)
    # Greedy beside it, so the CPU-limit kill lands during either bot's turn.
    done = arena("--bot", str(bot), "--bot", "greedy", "--games", "40", "--seed", "3", "--jobs", "2", "--trusted")
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"duckcover arena: a --jobs worker process died (killed by {killed_by}) while playing deal ")
    assert f"the bot that can have ended it: {bot} (in the worker's own process: --trusted)" in line
    assert "greedy" not in line.partition("the bot that")[2]  # a built-in bot is not named
    # The worker that played on was ended with the run: nothing of the arena outlives it.
    survivors = [int(name.name) for name in pids.iterdir()]
    assert not [pid for pid in survivors if alive(pid)]


# The attack of issue 28, from a confined bot: a one-second CPU limit on its parent, the worker.
LIMITER = """
import os, resource
from duckcover.players.bot import Bot

class Limiter(Bot):
    description = "Sets a 1-second CPU limit on the process that started it: the arena's worker."
    tried = False

    def choose(self, view):
        if not Limiter.tried:
            Limiter.tried = True
            try:
                resource.prlimit(os.getppid(), resource.RLIMIT_CPU, (1, 1))
            except OSError:
                pass  # a wall refused it
        return view.legal_moves()[0]
"""


@pytest.mark.keys
def test_jobs_2_with_a_confined_bot_that_limits_its_worker_ends_by_itself(tmp_path):
    bot = tmp_path / "limiter.py"
    bot.write_text(LIMITER)
    # Each attempt costs the bot its process (and a restart): 4 deals, two for each worker, keep
    # that bounded and still let the attack reach both.
    done = arena("--bot", str(bot), "--bot", "greedy", "--games", "4", "--seed", "1", "--jobs", "2", "--json")
    assert "Traceback" not in done.stderr
    if available().seccomp:  # the allow-list kills the bot at the call and names it; the run ends
        assert done.returncode == 0, done.stderr
        figures = json.loads(done.stdout)
        assert figures["deals"] == 4
        assert any("killed by SIGSYS" in reason for reason in figures["bots"][0]["fallback_reasons"])
        return
    if done.returncode == 0:  # another wall refused the call: every deal was played
        assert json.loads(done.stdout)["deals"] == 4
        return
    assert done.returncode == 2 and done.stdout == "", done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("duckcover arena: a --jobs worker process died (killed by SIG")
    assert line.endswith(f"the bot that can have ended it: {bot} (in a confined process: only by getting through its walls)")


@pytest.mark.keys  # spawns two worker processes
def test_with_two_jobs_progress_counts_every_deal_once_and_results_come_in_deal_order():
    seen: list[int] = []
    results = run(ArenaConfig(("greedy", "random"), deals=5, seed=1), jobs=2, progress=seen.append)
    assert sum(seen) == 5 and [result.deal for result in results] == [0, 1, 2, 3, 4]


@pytest.mark.keys
def test_an_error_in_a_worker_is_raised_in_the_arena_not_blamed_on_a_bot(tmp_path):
    missing = tmp_path / "gone.py"  # trusted bots are loaded in the worker: this one cannot be
    with pytest.raises(BotLoadError, match="no such file"):
        run(ArenaConfig((str(missing), "greedy"), deals=4, trusted=True), jobs=2)


def test_the_suspects_are_the_bots_that_are_not_built_in():
    assert suspects(ArenaConfig(("mine.py", "greedy"), deals=1, trusted=True)) == (
        "the bot that can have ended it: mine.py (in the worker's own process: --trusted)")
    assert suspects(ArenaConfig(("a.py", "greedy", "b.py:B", "a.py"), deals=1)) == (
        "the bots that can have ended it: a.py, b.py:B (in a confined process: only by getting through its walls)")
    assert suspects(ArenaConfig(("greedy", "random"), deals=1)) == (
        "every bot is built in: something outside the arena ended it (out of memory?)")


# --- the same on a Dask cluster ---------------------------------------------------------------------
@pytest.mark.keys  # a Dask scheduler and workers in processes of their own
def test_on_a_cluster_a_bot_that_kills_every_worker_is_given_up_and_named(tmp_path):
    pytest.importorskip("distributed", reason="Dask distributed is not installed (pip install -e '.[cluster]')")
    from duckcover.players.cluster import LoopbackCluster

    bot, _ = killer_bot(tmp_path, "sigkill", every_worker=True)
    # Nannies start each killed worker again (as `dask worker` does by default); the scheduler
    # gives a task up after it has killed allowed-failures + 1 = 2 workers.
    started = LoopbackCluster(cluster_folder(tmp_path), workers=2, nanny=True, allowed_failures=1)
    try:
        done = arena("--bot", str(bot), "--bot", "greedy", "--games", "4", "--seed", "3", "--trusted",
                     "--cluster", started.address)
    finally:
        started.stop()
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("duckcover arena: deals ") and " ended 2 workers they ran on " in line, line
    assert line.endswith(f"the bot that can have ended it: {bot} (in the worker's own process: --trusted)")


@pytest.mark.keys
def test_on_a_cluster_whose_workers_are_all_killed_the_run_stops(tmp_path, monkeypatch):
    pytest.importorskip("distributed", reason="Dask distributed is not installed (pip install -e '.[cluster]')")
    from duckcover.players import cluster

    monkeypatch.setattr(cluster, "NO_WORKER_LIMIT", 3.0)
    monkeypatch.setattr(cluster, "WATCH", 1.0)
    bot, _ = killer_bot(tmp_path, "sigkill", every_worker=True)
    config = ArenaConfig((str(bot), "greedy"), deals=4, seed=3, trusted=True)
    # Without nannies nothing starts a killed worker again: with the default allowed-failures (3)
    # the task never reaches KilledWorker, and the scheduler would wait for workers forever.
    started = cluster.LoopbackCluster(cluster_folder(tmp_path), workers=2)
    try:
        with pytest.raises(cluster.ClusterError) as stopped:
            cluster.run(config, started.address, timeout=RUN_LIMIT)
        assert all(process.poll() == -signal.SIGKILL for process in started.workers)
    finally:
        started.stop()
    assert str(stopped.value) == (f"the cluster has had no worker for 3 s, so the run stopped without figures; "
                                  f"if its workers were killed, the bot that can have ended it: {bot} "
                                  f"(in the worker's own process: --trusted)")
