"""A bot that ends the process playing its deals: `arena --jobs 2` stops by itself with one
line naming the bot and exit status 2 (docs/arena.md, "A dead worker"), never waits forever.

Written as the attacker: a `--trusted` file bot runs in the worker's own process (a built-in or
trusted bot is called there; the others play from a confined process of their own), so it can
end that process as a bot that got through its walls would: SIGKILL, or a CPU limit that the
kernel enforces later, during whichever bot's turn.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from duckcover.players.arena import ArenaConfig, suspects

RUN_LIMIT = 180.0  # seconds for a run that must end by itself: two spawned workers on a loaded machine

# The first worker to claim the flag file ends itself; the others write down their pid and play
# on, so the test can see that the arena ended them too.
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
            sum(range(100_000))  # a few ms of CPU a decision: the limit is reached within the chunk
        return view.legal_moves()[0]
"""


def killer_bot(folder: Path, how: str) -> tuple[Path, Path]:
    pids = folder / "pids"
    pids.mkdir()
    path = folder / "killer.py"
    path.write_text(KILLER.format(flag=str(folder / "claimed"), pids=str(pids), how=how))
    return path, pids


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


def test_the_suspects_are_the_bots_that_are_not_built_in():
    assert suspects(ArenaConfig(("mine.py", "greedy"), deals=1, trusted=True)) == (
        "the bot that can have ended it: mine.py (in the worker's own process: --trusted)")
    assert suspects(ArenaConfig(("a.py", "greedy", "b.py:B", "a.py"), deals=1)) == (
        "the bots that can have ended it: a.py, b.py:B (in a confined process: only by getting through its walls)")
    assert suspects(ArenaConfig(("greedy", "random"), deals=1)) == (
        "every bot is built in: something outside the arena ended it (out of memory?)")
