"""Tests written as the attacker: a bot you did not write tries, through the operating system,
to read the deal, to stop the game, to reach the terminal, the network or the files, or to
leave a process behind (issue 17; each attack below worked on the code before duckcover.players.confine).

For each attack: the game completes; the honest seats play exactly as beside a passive bot
(every hostile bot answers with the passive move, or dies and gets the Referee's fallback,
which is the same move); where the kernel kills the bot for it (seccomp: SIGSYS) the offender
is named; the bots that try to read the deal predict the next flip no better than chance; and
no process of the bot's is alive after the game (a /proc scan for its pids, process groups and
sessions). Each runs a bounded game (3 rounds) with a 0.3 s cut-off for the hostile seat.

The controls run the same attack with the walls taken down by a parameter
(`Protections.of(...)`), so an attack that fails here fails because of the walls, not because
the attack is broken. Tests needing Landlock or seccomp skip, with the reason, where the
kernel lacks them; on CI the kernel is checked to have them.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duckcover.players.confine import (WALLS, Protections, available, keep_private, landlock_abi, readable_paths,
                               seccomp_available)
from duckcover.players.harness import play_game
from duckcover.players.plugins import resolve_bot
from duckcover.players.safety import PassiveBot, Referee
from duckcover.players.sandbox import BotProcess
from duckcover.saves.record import replay, to_record

from helpers import examples

pytestmark = pytest.mark.keys  # the slow tier: every test starts bot processes behind the kernel's walls

LIMIT = 0.3  # seconds: the hostile seat's cut-off
HONEST_LIMIT = 30.0
SEED, KEY = 2**100 + 4242, bytes(range(16))
KILLED = "killed by SIGSYS: a forbidden system call"
HERE = available()
UNWALLED = Protections.of("darwin", 0, False)  # what a system without kernel confinement gives

needs_walls = pytest.mark.skipif(
    not (HERE.landlock_abi >= 6 and HERE.seccomp),
    reason=f"this kernel lacks Landlock ABI >= 6 or seccomp ({HERE.summary()})",
)
needs_landlock = pytest.mark.skipif(HERE.landlock_abi < 4,
                                    reason=f"this kernel lacks Landlock ABI >= 4 ({HERE.summary()})")

HEADER = """\
import os, signal, socket, struct, sys, time
from collections import Counter
from duckcover.players.safety import PassiveBot


def attempt(label, action):
    try:
        result = action()
        print(label, "ok", repr(result)[:300])
    except OSError as err:
        print(label, "denied", err.errno)


def libc_call(name, *args):
    # a libc function through ctypes, raising OSError as os.* would (ctypes only returns -1)
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    result = getattr(libc, name)(*args)
    if result == -1:
        raise OSError(ctypes.get_errno(), name)
    return result


def answers_fd():
    import json
    return json.loads(sys.argv[1])["answers"]


def requests_fd():
    import json
    return json.loads(sys.argv[1])["requests"]


# keyctl, add_key and io_uring_setup by number (not on the allow-list, so not in confine's table)
import platform
OTHER_CALLS = {"x86_64": dict(keyctl=250, add_key=248, io_uring_setup=425),
               "aarch64": dict(keyctl=219, add_key=217, io_uring_setup=425)}.get(platform.machine(), {})
"""

# Reads the game's memory through /proc/<game>/mem and finds the round's deck: a Python list
# of small ints is an array of pointers to the interpreter's static ints, whose place in the
# game's process follows from the same binary's mapping there. Without walls it knows every
# flip once a round has shown a few (in a fresh process, all of them).
MEMORY_THIEF = """
def mapping_of(maps_text, address):
    for line in maps_text.splitlines():
        parts = line.split()
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        if lo <= address < hi and len(parts) >= 6:
            return lo, int(parts[2], 16), parts[5]


def game_small_ints(game):
    lo, offset, path = mapping_of(open("/proc/self/maps").read(), id(0))
    for line in open(f"/proc/{game}/maps").read().splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[5] == path and int(parts[2], 16) == offset:
            return int(parts[0].split("-")[0], 16) + (id(0) - lo)


def find_deck(seen, full):
    game = os.getppid()
    base, stride, length = game_small_ints(game), id(1) - id(0), sum(full.values())
    pattern = b"".join(struct.pack("<Q", base + stride * c) for c in seen[:4])
    with open(f"/proc/{game}/mem", "rb", 0) as mem:
        for line in open(f"/proc/{game}/maps").read().splitlines():
            parts = line.split()
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            if not parts[1].startswith("rw") or hi - lo > 1 << 30:
                continue
            try:
                mem.seek(lo)
                data = mem.read(hi - lo)
            except OSError:
                continue
            i = data.find(pattern)
            while i >= 0:
                if i % 8 == 0 and i + 8 * length <= len(data):
                    codes = []
                    for word in struct.unpack_from(f"<{length}Q", data, i):
                        d = word - base
                        if d < 0 or d % stride or d // stride > 40:
                            break
                        codes.append(d // stride)
                    if len(codes) == length and codes[:len(seen)] == seen and Counter(codes) == full:
                        return codes
                i = data.find(pattern, i + 1)


class Evil(PassiveBot):
    decks = {}
    denied = False

    def observe(self, view, turn):
        seen = [f for t in view.history for f in t.flips]
        deck = self.decks.get(view.round_index)
        # After a flip or two many lists in the game's memory fit (other games' decks, freed but
        # not yet overwritten): a guess the next flip belies sends the thief searching again.
        mislead = deck is None or deck[:len(seen)] != seen
        if not self.denied and mislead and len(seen) < len(view.rules.deck()):
            try:
                deck = self.decks[view.round_index] = find_deck(seen, Counter(view.rules.deck()))
                print("memory", "ok" if deck else "not found")
            except OSError as err:
                self.denied = True
                print("memory denied", err.errno)
        if deck is not None and len(seen) < len(deck) and deck[:len(seen)] == seen:
            guess = deck[len(seen)]
        else:  # chance: the most frequent card left
            left = Counter(view.rules.deck()) - Counter(seen)
            guess = max(sorted(left), key=left.__getitem__) if left else 1
        print("P", view.round_index, len(seen), guess)
"""

# Every other attack, as the body of choose (it answers the passive move if it lives).
ATTACKS = {
    "cmdline": ("", """
        attempt("cmdline", lambda: open(f"/proc/{os.getppid()}/cmdline", "rb").read())
        attempt("environ", lambda: open(f"/proc/{os.getppid()}/environ", "rb").read())
    """),
    "descriptors": ("", """
        game = os.getppid()
        attempt("fd list", lambda: os.listdir(f"/proc/{game}/fd"))
        for fd in range(3, 40):  # every pipe the game holds, the other bot's included
            try:
                with open(f"/proc/{game}/fd/{fd}", "rb", buffering=0) as pipe:
                    os.set_blocking(pipe.fileno(), False)
                    print("pipe", fd, "ok", pipe.read(200))
            except OSError as err:
                pass
        attempt("proc list", lambda: os.listdir("/proc"))
    """),
    "tty": ("", """
        attempt("tty", lambda: open("/dev/tty", "w").write("\\x1b]0;pwned\\x07"))
    """),
    "stdout": ("", """
        attempt("stdout", lambda: open(f"/proc/{os.getppid()}/fd/1", "w").write("not JSON\\n"))
        attempt("stderr", lambda: open(f"/proc/{os.getppid()}/fd/2", "w").write("noise\\n"))
    """),
    "kill_game": (KILLED, "os.kill(os.getppid(), signal.SIGKILL)"),
    "stop_game": (KILLED, "os.kill(os.getppid(), signal.SIGSTOP)"),
    "interrupt_game": (KILLED, "os.kill(os.getppid(), signal.SIGINT)"),
    "kill_game_group": (KILLED, "os.killpg(os.getppid(), signal.SIGKILL)"),
    "stop_game_group": (KILLED, "os.killpg(os.getppid(), signal.SIGSTOP)"),
    "interrupt_game_group": (KILLED, "os.killpg(os.getppid(), signal.SIGINT)"),
    # Starting a process is refused (EPERM), not punished: an honest library may try
    "fork_many": ("", """
        for _ in range(50):
            attempt("fork", os.fork)
    """),
    "subprocess": ("", """
        import subprocess
        attempt("subprocess", lambda: subprocess.run(["/bin/true"]))
        attempt("posix_spawn", lambda: os.posix_spawn("/bin/true", ["true"], {}))
        attempt("exec", lambda: os.execv("/bin/true", ["true"]))
        attempt("memfd", lambda: os.memfd_create("payload"))
    """),
    # Limits and scheduling of the game (values that would show, and not harm, if they got through)
    "prlimit_fsize_game": (KILLED, """
        import resource
        resource.prlimit(os.getppid(), resource.RLIMIT_FSIZE, (1 << 40, resource.RLIM_INFINITY))
    """),
    "prlimit_cpu_game": (KILLED, """
        import resource
        resource.prlimit(os.getppid(), resource.RLIMIT_CPU, (10**6, resource.RLIM_INFINITY))
    """),
    "prlimit_neighbours": (KILLED, """
        import resource
        for pid in range(os.getpid() - 3, os.getpid() + 40):  # a rival bot, any process of the user
            if pid != os.getpid():
                resource.prlimit(pid, resource.RLIMIT_CPU, (10**6, resource.RLIM_INFINITY))
    """),
    "nice_game": (KILLED, "os.setpriority(os.PRIO_PROCESS, os.getppid(), 1)"),
    "renice_user": (KILLED, "os.setpriority(os.PRIO_USER, os.getuid(), 0)"),
    "renice_group": (KILLED, "os.setpriority(os.PRIO_PGRP, 0, 0)"),
    "sched_idle_game": (KILLED, "os.sched_setscheduler(os.getppid(), os.SCHED_IDLE, os.sched_param(0))"),
    "affinity_game": (KILLED, "os.sched_setaffinity(os.getppid(), {min(os.sched_getaffinity(0))})"),
    "ioprio_game": (KILLED, """
        from duckcover.players.confine import SYSCALLS
        libc_call("syscall", SYSCALLS[platform.machine()]["ioprio_set"], 1, os.getppid(), (3 << 13) | 7)
    """),
    # A signal owner on its own pipe: the kernel would signal the game at each request
    "fsetown_game": (KILLED, """
        import fcntl
        fcntl.fcntl(requests_fd(), fcntl.F_SETSIG, signal.SIGUSR1)
    """),
    "fsetown_signal": (KILLED, """
        import fcntl
        fcntl.fcntl(requests_fd(), fcntl.F_SETOWN, os.getppid())
    """),
    # Outliving the game: the parent-death signal stays
    "pdeathsig": ("", """
        attempt("pdeathsig", lambda: libc_call("prctl", 1, 0, 0, 0, 0))
        import ctypes
        value = ctypes.c_int(-1)
        libc_call("prctl", 2, ctypes.byref(value), 0, 0, 0)
        assert value.value == signal.SIGKILL, value.value
    """),
    # Kernel objects outside the file system: SysV IPC, keyrings, io_uring
    "sysv_ipc": ("", """
        attempt("shmget", lambda: libc_call("shmget", 0, 1 << 30, 0o1600))
        attempt("semget", lambda: libc_call("semget", 0, 1, 0o1600))
        attempt("msgget", lambda: libc_call("msgget", 0, 0o1600))
    """),
    "keyring": ("", """
        attempt("keyctl", lambda: libc_call("syscall", OTHER_CALLS["keyctl"], 0, -3, 0, 0, 0))  # KEYCTL_GET_KEYRING_ID of the session
        attempt("add_key", lambda: libc_call("syscall", OTHER_CALLS["add_key"], b"user", b"k", b"v", 1, -3))
    """),
    "io_uring": ("", """
        import ctypes
        params = ctypes.create_string_buffer(120)
        attempt("io_uring", lambda: libc_call("syscall", OTHER_CALLS["io_uring_setup"], 8, params))
    """),
    # Floods and garbage on the pipe
    "deep_answer": ("not a protocol answer", """
        os.write(answers_fd(), b"[" * 5000 + b"\\n")
    """),
    "ptrace": (KILLED, """
        import ctypes
        ctypes.CDLL(None, use_errno=True).ptrace(16, os.getppid(), 0, 0)  # PTRACE_ATTACH
    """),
    "process_vm_readv": (KILLED, """
        import ctypes
        buffer = ctypes.create_string_buffer(64)
        local = (ctypes.c_void_p * 2)(ctypes.addressof(buffer), 64)
        remote = (ctypes.c_void_p * 2)(id(0), 64)  # the same binary: somewhere mapped in the game too
        ctypes.CDLL(None, use_errno=True).process_vm_readv(os.getppid(), local, 1, remote, 1, 0)
    """),
    "threads": ("", """
        import threading
        box = []
        worker = threading.Thread(target=lambda: box.append(1))  # threads stay allowed
        worker.start()
        worker.join()
        assert box == [1]
    """),
}


# The attacks the walls refuse without a kill (every attempt answered EPERM or EACCES; the bot
# plays on) run one after another in one bot process: each still runs at every choice and each
# attempt still prints its own line, and one "ok" among them fails the test. The cheap probes
# first; those that fork or start threads last, so no probe meets what another left behind.
# Each attack the kernel punishes ends its process, so it runs alone; so does `cmdline`,
# which docs/bots.md cites by name.
REFUSED_TOGETHER = ("descriptors", "tty", "stdout", "sysv_ipc", "keyring", "io_uring", "pdeathsig", "subprocess",
                    "fork_many", "threads")
REFUSED_LABELS = ("fd list", "proc list", "tty", "stdout", "stderr", "shmget", "semget", "msgget", "keyctl", "add_key",
                  "io_uring", "pdeathsig", "subprocess", "posix_spawn", "exec", "memfd", "fork")
ALONE = [name for name, (named, _) in ATTACKS.items() if named or name not in REFUSED_TOGETHER]
ATTACKS_RUN = {**{name: ATTACKS[name] for name in ALONE},
               "refused_together": ("", "\n".join(textwrap.dedent(ATTACKS[name][1]) for name in REFUSED_TOGETHER))}


def attack_source(body: str) -> str:
    return HEADER + "\n\nclass Evil(PassiveBot):\n    def choose(self, view):\n" + textwrap.indent(
        textwrap.dedent(body), " " * 8) + "\n        return super().choose(view)\n"


class Watched(BotProcess):
    """A BotProcess that remembers every pid it started (restarts included)."""

    def _spawn(self) -> None:
        super()._spawn()
        self.pids = [*getattr(self, "pids", []), self.proc.pid]


def processes_of(pids: list[int]) -> list[int]:
    """Live processes that are one of `pids` or in a process group or session one of them led."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        fields = stat[stat.rindex(")") + 2:].split()
        state, group, session = fields[0], int(fields[2]), int(fields[3])
        if state != "Z" and (int(entry.name) in pids or group in pids or session in pids):
            found.append(int(entry.name))
    return found


def play(first, seats: int = 3, limit: float = LIMIT, others=None):
    """A refereed game: `first` at seat 0, greedy (or `others`) elsewhere; (game, referee)."""
    others = others or [resolve_bot("greedy") for _ in range(seats - 1)]
    bots = [first, *others]
    referee = Referee(bots, hard_limit=[limit] + [HONEST_LIMIT] * (seats - 1), key=KEY,
                      keep_processes=isinstance(first, BotProcess))
    game = play_game(bots, seed=SEED, referee=referee, names=["Evil", "Ann", "Bob"][:seats])
    return game, referee


def printed(process: BotProcess) -> str:
    """Everything the bot process printed (its output file, before it is closed)."""
    return os.pread(process._out.fileno(), 1 << 16, 0).decode("utf-8", "replace")


def moves_of(game):
    return [turn.moves for log in game.rounds for turn in log.turns], game.totals


@pytest.fixture(scope="module")
def passive_game():
    game, referee = play(PassiveBot())
    assert not referee.fallbacks
    return moves_of(game)


def play_file_bot(bot: Path, limit: float = LIMIT):
    """A game with the file's Evil at seat 0: (game, referee, what it printed)."""
    process = BotProcess(f"{bot}:Evil")
    try:
        game, referee = play(process, limit=limit)
        return game, referee, printed(process)
    finally:
        process.close()


def run_attack(tmp_path, source: str, protections: Protections | None = None, limit: float = LIMIT, others=None):
    folder = tmp_path / "bots"
    folder.mkdir(exist_ok=True)
    path = folder / "evil.py"
    path.write_text(source)
    process = Watched(f"{path}:Evil", protections=protections)
    try:
        game, referee = play(process, limit=limit, others=others)
        output = printed(process)
    finally:
        process.close()
    return game, referee, output, process


# --- the kernel the tests run on ------------------------------------------------------------------
def test_ci_runs_on_a_kernel_with_every_wall():
    """CI's kernel is checked, not assumed: Landlock ABI >= 6 (file system, TCP, scopes) and seccomp."""
    if not os.environ.get("CI"):
        pytest.skip("not on CI (CI is set there): this machine reports " + HERE.summary())
    assert landlock_abi() >= 6, HERE.summary()
    assert seccomp_available(), HERE.summary()
    assert HERE.complete, HERE.summary()


# --- every attack ---------------------------------------------------------------------------------
def game_process_state() -> dict:
    """What a bot might change of the game's process from outside: its limits, priority,
    scheduling and CPUs."""
    import resource

    limits = {name: resource.getrlimit(getattr(resource, name)) for name in dir(resource) if name.startswith("RLIMIT_")}
    return {"limits": limits, "nice": os.getpriority(os.PRIO_PROCESS, 0), "policy": os.sched_getscheduler(0),
            "cpus": os.sched_getaffinity(0)}


@needs_walls
@pytest.mark.parametrize("name", list(ATTACKS_RUN))
def test_an_attack_through_the_system_changes_nothing_and_leaves_nothing(name, tmp_path, capfd, passive_game):
    named, body = ATTACKS_RUN[name]
    before = game_process_state()
    game, referee, output, process = run_attack(tmp_path, attack_source(body))
    assert game_process_state() == before  # the game's limits, priority and CPUs are its own
    assert game.over
    assert moves_of(game) == passive_game  # every seat played as beside a passive bot
    replay(to_record(game))
    assert {f.seat for f in referee.fallbacks} <= {0}
    if named:  # the kernel killed it for the attempt: the Referee says so
        assert named in referee.failures[0]
        assert process.restarts >= 1
    else:
        assert not referee.fallbacks, referee.fallbacks[:3]
        assert " ok " not in output, output[:500]  # every attempt was denied
    if name == "refused_together":  # and every one of them was made
        assert all(f"{label} denied " in output for label in REFUSED_LABELS), output[:800]
    assert processes_of(process.pids) == []  # nothing of it outlives the game
    assert capfd.readouterr() == ("", "")  # neither the terminal nor the game's output was reached


@needs_walls
def test_a_bot_cannot_read_the_other_bots_pending_move_through_the_game(tmp_path, passive_game):
    """The descriptor thief sits beside another bot process: no pipe of the game opens."""
    other = tmp_path / "other.py"
    other.write_text("from duckcover_bots.greedy import GreedyBot as Other\n")
    neighbour = BotProcess(f"{other}:Other")
    try:
        _, referee, output, _ = run_attack(tmp_path, attack_source(ATTACKS["descriptors"][1]),
                                           others=[neighbour, resolve_bot("greedy")])
    finally:
        neighbour.close()
    assert "fd list denied 13" in output and "pipe" not in output and "proc list denied 13" in output
    assert not referee.fallbacks


# --- the deal stays unknown -----------------------------------------------------------------------
def flip_predictions(game, output: str, from_flip: int = 0):
    """Hits of the bot's printed guesses of the next flip (once a round has shown `from_flip`
    flips), and the hits chance would give."""
    hits, mean, var, count = 0, 0.0, 0.0, 0
    for line in output.splitlines():
        if not line.startswith("P "):
            continue
        _, r, k, guess = line.split()
        deck = game.rounds[int(r)].deck
        if int(k) < from_flip or int(k) >= len(deck):
            continue  # past the deck: a reshuffle's order is another question
        left = Counter(deck[int(k):])
        p = left[int(guess)] / sum(left.values())
        hits, mean, var, count = hits + (deck[int(k)] == int(guess)), mean + p, var + p * (1 - p), count + 1
    return hits, mean, var, count


@needs_walls
def test_the_memory_thief_predicts_the_next_flip_no_better_than_chance(tmp_path, passive_game):
    game, referee, output, process = run_attack(tmp_path, HEADER + MEMORY_THIEF)
    hits, mean, var, count = flip_predictions(game, output)
    assert count > 40
    assert "memory denied 13" in output and "memory ok" not in output
    assert hits <= mean + 4 * var**0.5 + 1, (hits, mean, count)
    assert moves_of(game) == passive_game and not referee.fallbacks
    assert processes_of(process.pids) == []


def test_without_walls_the_same_thief_reads_every_flip(tmp_path):
    """The control: the attack itself works (so above, the walls stopped it)."""
    game, _, output, _ = run_attack(tmp_path, HEADER + MEMORY_THIEF, protections=UNWALLED, limit=HONEST_LIMIT)
    hits, mean, var, count = flip_predictions(game, output)
    assert "memory ok" in output
    assert hits > mean + 10 * var**0.5, (hits, mean, count)
    # The first flips of a round may match stale decks (a long test process holds many);
    # once a round has shown four, the thief knows each next flip.
    late_hits, _, _, late_count = flip_predictions(game, output, from_flip=4)
    assert late_hits == late_count > 40, (late_hits, late_count)


@needs_walls
def test_the_save_and_the_data_directory_stay_closed_even_beside_the_bot(tmp_path):
    """The data directory lies in the folder that holds the bot file: the bot gets its file, not the folder."""
    data = tmp_path / "data"
    (data / "games").mkdir(parents=True)
    save = data / "games" / "unfinished.json"
    save.write_text('{"seed": 987654321987654321, "deck": [1, 2, 3]}')
    keep_private(str(data))  # as the command line does with the real data directory
    bot = tmp_path / "evil.py"
    bot.write_text(attack_source(f"""
        attempt("save", lambda: open({str(save)!r}).read())
        attempt("games", lambda: os.listdir({str(data / "games")!r}))
        attempt("folder", lambda: os.listdir({str(tmp_path)!r}))
        attempt("own file", lambda: len(open(__file__).read()) > 0)
    """))
    game, referee, output = play_file_bot(bot)
    assert game.over and not referee.fallbacks
    assert "save denied 13" in output and "games denied 13" in output and "folder denied 13" in output
    assert "own file ok True" in output
    assert "987654321987654321" not in output


THREAD_FLOOD = """
        import threading
        threading.stack_size(32768)
        started = 0
        for _ in range(3000):
            try:
                threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
                started += 1
            except RuntimeError:  # a limit of the system's came first (the address-space cap)
                break
        print("threads", started)
        if started > 64:
            time.sleep(1)  # the game counts a bot's threads while it waits for its answer
"""


@needs_walls
def test_a_thread_flood_is_stopped_at_the_bound_and_named(tmp_path, passive_game):
    """3,000 threads asked for: past MAX_THREADS the game stops the bot and names it; where the
    system's own limits (1 GiB of address space: glibc gives threads arenas of their own) stop
    the flood below the bound first, the bot plays on. Either way nothing of it is left."""
    import re

    from duckcover.players.sandbox import MAX_THREADS

    game, referee, output, process = run_attack(tmp_path, attack_source(THREAD_FLOOD))
    started = re.search(r"threads (\d+)", output)
    if started is None or int(started.group(1)) > MAX_THREADS:
        assert f"threads (at most {MAX_THREADS})" in referee.failures[0], referee.failures
    assert game.over and moves_of(game) == passive_game
    assert processes_of(process.pids) == []


# --- the player's files, environment and kernel objects (issue 28) --------------------------------
@needs_walls
def test_the_players_files_and_environment_stay_closed_to_a_bot(tmp_path, monkeypatch):
    """A bot in ~/Downloads does not read the tax return beside it; a game started in a project
    folder does not lend the bot that folder (its .env); a token in the game's environment does
    not reach the bot. Its own file stays readable."""
    downloads = tmp_path / "Downloads"
    downloads.mkdir()
    (downloads / "tax-return.txt").write_text("TAX-SECRET-4711")
    project = tmp_path / "projects"
    project.mkdir()
    (project / ".env").write_text("API_TOKEN=ENV-FILE-SECRET-0815")
    monkeypatch.chdir(project)
    monkeypatch.setenv("DUCKCOVER_TEST_TOKEN", "ENVIRONMENT-SECRET-1234")
    monkeypatch.syspath_prepend(str(project))  # as `python -m duckcover` run in that folder has it
    bot = downloads / "evil.py"
    bot.write_text(attack_source(f"""
        attempt("beside", lambda: open(os.path.join(os.path.dirname(__file__), "tax-return.txt")).read())
        attempt("downloads", lambda: os.listdir(os.path.dirname(__file__)))
        attempt("dotenv", lambda: open({str(project / ".env")!r}).read())
        attempt("cwd", lambda: os.listdir({str(project)!r}))
        attempt("own file", lambda: len(open(__file__).read()) > 0)
        print("environment", sorted(os.environ), os.environ.get("DUCKCOVER_TEST_TOKEN"))
        print("path", sys.path)
    """))
    game, referee, output = play_file_bot(bot)
    assert game.over and not referee.fallbacks
    for label in ("beside", "downloads", "dotenv", "cwd"):
        assert f"{label} denied 13" in output, output[:800]
    assert "own file ok True" in output
    for secret in ("TAX-SECRET", "ENV-FILE-SECRET", "ENVIRONMENT-SECRET", "DUCKCOVER_TEST_TOKEN"):
        assert secret not in output
    assert str(project) not in output.split("path", 1)[1]  # not even on its sys.path


def test_a_bot_starts_with_the_locale_and_nothing_else_of_the_game():
    from duckcover.players.sandbox import BOT_ENVIRONMENT, child_environment

    game = {"HOME": "/home/ann", "API_TOKEN": "x", "LANG": "de_DE.UTF-8", "LC_ALL": "C.UTF-8",
            "PYTHONPATH": "/home/ann/projects", "SSH_AUTH_SOCK": "/tmp/agent", "PATH": "/home/ann/bin:/usr/bin"}
    assert child_environment(game) == {"LANG": "de_DE.UTF-8", "LC_ALL": "C.UTF-8", **BOT_ENVIRONMENT}


def sysv_segments() -> set[str]:
    try:
        return {line.split()[1] for line in Path("/proc/sysvipc/shm").read_text().splitlines()[1:]}
    except OSError:
        return set()


@needs_walls
def test_shared_memory_and_keys_of_the_user_stay_out_of_reach(tmp_path, passive_game):
    """Another program's SysV segment and a key in the session keyring hold secrets: the bot
    reads neither, and leaves no segment of its own behind."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    segment = libc.shmget(0, 4096, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if segment < 0:
        pytest.skip(f"SysV shared memory is not available here (errno {ctypes.get_errno()})")
    address = libc.shmat(segment, None, 0)
    ctypes.memmove(address, b"SHM-SECRET-2468", 15)
    from test_bot_confinement import OTHER_CALLS_HERE

    key = libc.syscall(OTHER_CALLS_HERE["add_key"], b"user", b"duckcover-test", b"KEY-SECRET-1357", 15, -3)
    before = sysv_segments()
    try:
        game, referee, output, process = run_attack(tmp_path, attack_source(f"""
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.shmat.restype = ctypes.c_void_p
            attempt("shmat", lambda: libc_call("shmat", {segment}, None, 0))
            attempt("shmget", lambda: libc_call("shmget", 0, 1 << 30, 0o1600))
            buffer = ctypes.create_string_buffer(64)
            attempt("keyread", lambda: libc_call("syscall", OTHER_CALLS["keyctl"], 11, {key}, buffer, 64))
            print("read", buffer.raw)
        """))
    finally:
        libc.shmdt(ctypes.c_void_p(address))
        libc.shmctl(segment, 0, None)  # IPC_RMID
        if key > 0:
            libc.syscall(OTHER_CALLS_HERE["keyctl"], 3, key)  # KEYCTL_REVOKE
    assert "shmat denied 1" in output and "shmget denied 1" in output and "keyread denied 1" in output
    assert "SHM-SECRET" not in output and "KEY-SECRET" not in output
    assert sysv_segments() <= before  # nothing of the bot's is held after the game
    assert moves_of(game) == passive_game and not referee.fallbacks


OTHER_CALLS_HERE = {"x86_64": dict(keyctl=250, add_key=248), "aarch64": dict(keyctl=219, add_key=217)}.get(
    __import__("platform").machine(), {})


@needs_walls
def test_another_process_of_the_user_keeps_its_limits(tmp_path, passive_game):
    """A canary process of the same user: the bot's prlimit on it kills the bot, not the canary."""
    canary = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        limits = Path(f"/proc/{canary.pid}/limits").read_text()
        game, referee, _, process = run_attack(tmp_path, attack_source(f"""
            import resource
            resource.prlimit({canary.pid}, resource.RLIMIT_CPU, (1, 1))
        """))
        assert canary.poll() is None and Path(f"/proc/{canary.pid}/limits").read_text() == limits
    finally:
        canary.kill()
        canary.wait()
    assert KILLED in referee.failures[0]
    assert moves_of(game) == passive_game
    assert processes_of(process.pids) == []


GAME_THEN_WAIT = """
import sys, time
from duckcover.players.harness import play_game
from duckcover.players.plugins import resolve_bot
from duckcover.players.safety import Referee
from duckcover.players.sandbox import BotProcess

bot = BotProcess(sys.argv[1])
bots = [bot, resolve_bot("greedy"), resolve_bot("greedy")]
play_game(bots, seed=7, referee=Referee(bots, hard_limit=[5, 30, 30], key=bytes(16), keep_processes=True),
          names=["Evil", "Ann", "Bob"])
print(bot.proc.pid, flush=True)
time.sleep(120)
"""


@needs_walls
def test_a_bot_that_clears_its_parent_death_signal_still_dies_with_a_killed_game(tmp_path):
    """The bot tries to clear PR_SET_PDEATHSIG (refused); the game is SIGKILLed: the bot goes too."""
    bot = tmp_path / "evil.py"
    bot.write_text(HEADER + """
import ctypes
class Evil(PassiveBot):
    def choose(self, view):
        attempt("pdeathsig", lambda: libc_call("prctl", 1, 0, 0, 0, 0))
        return super().choose(view)
""")
    game = subprocess.Popen([sys.executable, "-c", GAME_THEN_WAIT, f"{bot}:Evil"], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(game.stdout.readline())
        assert processes_of([pid]) == [pid]  # alive while the game waits
    finally:
        game.kill()
        game.wait(timeout=30)
    for _ in range(100):  # at most 5 s for the kernel to deliver the death signal
        if not processes_of([pid]):
            break
        import time
        time.sleep(0.05)
    assert processes_of([pid]) == []


# The game of the signal test: it counts the SIGUSR1 a bot's F_SETOWN + F_SETSIG would send it.
SIGNAL_GAME = """
import json, signal, sys
from duckcover.players.confine import Protections
from duckcover.players.harness import play_game
from duckcover.players.plugins import resolve_bot
from duckcover.players.safety import Referee
from duckcover.players.sandbox import BotProcess

received = []
signal.signal(signal.SIGUSR1, lambda *_: received.append(1))
abi, seccomp = json.loads(sys.argv[2])
bot = BotProcess(sys.argv[1], protections=Protections.of("linux", abi, seccomp))
bots = [bot, resolve_bot("greedy"), resolve_bot("greedy")]
referee = Referee(bots, hard_limit=[5, 30, 30], key=bytes(16), keep_processes=True)
play_game(bots, seed=7, referee=referee, names=["Evil", "Ann", "Bob"])
print(json.dumps({"signals": len(received), "failures": referee.failures}))
"""
SIGNAL_OWNER = HEADER + """
import fcntl
class Evil(PassiveBot):
    armed = False

    def choose(self, view):
        if not self.armed:
            self.armed = True
            for what, value in ((fcntl.F_SETSIG, signal.SIGUSR1), (fcntl.F_SETOWN, os.getppid())):
                attempt("fcntl", lambda: fcntl.fcntl(requests_fd(), what, value))
            attempt("async", lambda: fcntl.fcntl(requests_fd(), fcntl.F_SETFL,
                                                 fcntl.fcntl(requests_fd(), fcntl.F_GETFL) | os.O_ASYNC))
        return super().choose(view)
"""


@pytest.mark.parametrize("abi, seccomp", [(4, False), (5, False), (6, False), (7, False), (0, True), (7, True)])
def test_the_report_says_signals_hold_exactly_where_a_signal_owner_is_stopped(tmp_path, abi, seccomp):
    """The attack an older kernel let through (F_SETOWN + F_SETSIG on the bot's own pipe), run
    against a game in a process of its own, on each kernel a parameter describes: where the
    report says "signals" hold, the game gets no signal; where it says they do not, it does."""
    if abi > HERE.landlock_abi or (seccomp and not HERE.seccomp) or not sys.platform.startswith("linux"):
        pytest.skip(f"this kernel cannot play that one ({HERE.summary()})")
    bot = tmp_path / "evil.py"
    bot.write_text(SIGNAL_OWNER)
    done = subprocess.run([sys.executable, "-c", SIGNAL_GAME, f"{bot}:Evil", json.dumps([abi, seccomp])],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-1500:]
    figures = json.loads(done.stdout.splitlines()[-1])
    held = "signals" in Protections.of("linux", abi, seccomp, game_undumpable=True).held
    if held:
        assert figures["signals"] == 0, figures
    else:
        assert figures["signals"] > 0, figures  # the control: the attack itself works


@needs_walls
def test_an_honest_bot_with_the_usual_imports_plays_a_whole_game_unharmed(tmp_path):
    """json, random, math, itertools, dataclasses, functools, collections and numpy (when
    installed) import behind the walls; platform.processor() (which starts `uname`) is refused
    with an OSError the library handles, and the refusal is counted in the bot's report."""
    bot = tmp_path / "honest.py"
    bot.write_text("""
import collections, dataclasses, functools, itertools, json, math, platform, random
from duckcover.players.safety import PassiveBot
try:
    import numpy
except ImportError:
    numpy = None


class Honest(PassiveBot):
    def choose(self, view):
        total = int(numpy.arange(5).sum()) if numpy is not None else 10
        print("numpy", numpy is not None, total, "processor", repr(platform.processor()))
        return super().choose(view)
""")
    process = BotProcess(f"{bot}:Honest")
    try:
        game, referee = play(process, limit=HONEST_LIMIT)
        output = printed(process)
    finally:
        process.close()
    assert game.over and not referee.fallbacks and not referee.failures
    assert " 10 processor" in output
    assert process.refused == {"subprocess.Popen": 1}  # platform caches its answer: asked once
    try:
        import numpy  # noqa: F401
    except ImportError:
        return
    assert "numpy True 10" in output


# --- the network ----------------------------------------------------------------------------------
TCP = """
        attempt("tcp", lambda: socket.create_connection(("127.0.0.1", {port}), timeout=1).close())
"""


def listening():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    return server


def connections(server) -> int:
    count = 0
    while True:
        try:
            server.accept()[0].close()
            count += 1
        except BlockingIOError:
            return count


@needs_walls
def test_a_bot_cannot_connect_to_a_loopback_listener_and_its_attempt_is_counted(tmp_path, passive_game):
    """socket() is off the allow-list: it fails (EPERM), the bot plays on, its report counts it."""
    with listening() as server:
        game, referee, output, process = run_attack(tmp_path, attack_source(TCP.format(port=server.getsockname()[1])))
        assert connections(server) == 0
    assert moves_of(game) == passive_game and not referee.fallbacks
    assert "tcp denied 1" in output
    assert process.refused["socket.__new__"] >= 1
    assert processes_of(process.pids) == []


@needs_landlock
@pytest.mark.parametrize("abi", [4, 5, 6])
def test_landlock_alone_refuses_tcp_at_abi_4(tmp_path, abi):
    """Without seccomp (a parameter), Landlock's own TCP rule holds from ABI 4 on (each ABI's
    ruleset size is tried): connect is refused, not killed."""
    if abi > HERE.landlock_abi:
        pytest.skip(f"this kernel has Landlock ABI {HERE.landlock_abi}")
    walls = Protections.of("linux", abi, seccomp=False)
    with listening() as server:
        game, referee, output, _ = run_attack(tmp_path, attack_source(TCP.format(port=server.getsockname()[1])), walls)
        assert connections(server) == 0
    assert "tcp denied 13" in output and not referee.fallbacks


def test_on_an_older_kernel_the_network_is_open_and_the_report_says_so(tmp_path):
    """Landlock ABI 3 and no seccomp (parameters): the connection is made, and the protections
    value the sandbox reports says the network is open; the files stay closed."""
    walls = Protections.of("linux", min(3, HERE.landlock_abi), seccomp=False)
    assert "network" in walls.missing and WALLS["network"] in walls.warnings()
    body = TCP + '        attempt("cmdline", lambda: open(f"/proc/{{os.getppid()}}/cmdline", "rb").read())\n'
    with listening() as server:
        _, referee, output, _ = run_attack(tmp_path, attack_source(body.format(port=server.getsockname()[1])), walls)
        assert connections(server) >= 1
    assert "tcp ok" in output
    if HERE.landlock_abi >= 1:
        assert "cmdline denied 13" in output


# --- the arena: command line, standard output, the report -----------------------------------------
@needs_walls
def test_the_arena_keeps_its_seed_and_its_json_from_a_bot(tmp_path):
    bot = tmp_path / "bots" / "evil.py"
    bot.parent.mkdir()
    bot.write_text(attack_source("""
        attempt("cmdline", lambda: open(f"/proc/{os.getppid()}/cmdline", "rb").read())
        attempt("stdout", lambda: open(f"/proc/{os.getppid()}/fd/1", "w").write("not JSON\\n"))
        print("token", os.environ.get("API_TOKEN"))
        attempt("uname", lambda: __import__("subprocess").run(["uname", "-p"]))
    """))
    seed = 31415926535897932384626
    done = subprocess.run(
        [sys.executable, "-m", "duckcover", "arena", "--bot", f"{bot}:Evil", "--bot", "greedy",
         "--games", "2", "--seed", str(seed), "--hard-limit", "5", "--json"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "API_TOKEN": "TOKEN-SECRET-9876"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout)  # still JSON: nothing was written into it
    output = figures["bots"][0]["output"]
    assert "cmdline denied 13" in output and "stdout denied 13" in output
    assert str(seed) not in output
    assert "token None" in output and "TOKEN-SECRET" not in done.stdout  # the game's environment stays its own
    assert figures["bots"][0]["refused_calls"]["subprocess.Popen"] >= 2  # refused, counted, reported
    assert figures["bots"][1]["refused_calls"] == {}
    assert figures["protections"]["off"] == [] and figures["protections"]["landlock_abi"] >= 6
    assert "Landlock" in figures["protections"]["summary"]


# --- what holds, as a value ------------------------------------------------------------------------
def test_protections_on_a_full_kernel_hold_every_wall():
    walls = Protections.of("linux", 7, True, game_undumpable=True)
    assert walls.complete and walls.missing == [] and walls.warnings() == []
    assert walls.to_json()["on"] == sorted(WALLS)
    assert "all walls hold" in walls.summary()


@pytest.mark.parametrize("abi, seccomp, missing", [
    (0, False, ["files", "network", "signals", "processes", "limits", "shared"]),
    (3, False, ["network", "signals", "processes", "limits", "shared"]),
    (5, False, ["signals", "processes", "limits", "shared"]),
    (6, False, ["processes", "limits", "shared"]),
    (7, False, ["processes", "limits", "shared"]),
    (0, True, ["files"]),
    (4, True, []),
])
def test_protections_on_an_older_linux_name_what_is_missing(abi, seccomp, missing):
    walls = Protections.of("linux", abi, seccomp, game_undumpable=True)
    assert walls.missing == missing
    assert walls.warnings() == [WALLS[name] for name in missing]
    if "files" in missing:
        assert "bots on this system can read your files" in walls.warnings()
    assert walls.to_json()["off"] == missing


def test_protections_elsewhere_say_only_the_process_holds():
    walls = Protections.of("darwin", 7, True)
    assert walls.landlock_abi == 0 and not walls.seccomp
    assert walls.missing == list(WALLS)
    assert "no kernel confinement" in walls.summary()


def test_the_game_process_is_not_dumpable_once_a_bot_can_start(tmp_path):
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_DUMPABLE is Linux's")
    import ctypes

    path = tmp_path / "idle.py"
    path.write_text("from duckcover.players.safety import PassiveBot as Idle\n")
    BotProcess(f"{path}:Idle").close()
    assert available().game_undumpable
    assert ctypes.CDLL(None).prctl(3, 0, 0, 0, 0) == 0  # PR_GET_DUMPABLE: 0
    assert "\nSeccomp:\t0" in Path("/proc/self/status").read_text()  # the game itself is never filtered


# --- what a bot may read, as a property ------------------------------------------------------------
FOLDERS = ["a", "a/b", "a/b/c", "a/d", "e", "e/f", "a/b/c/g"]


@settings(max_examples=examples(60))
@given(granted=st.lists(st.sampled_from(FOLDERS), max_size=5), private=st.lists(st.sampled_from(FOLDERS), max_size=3),
       bot=st.sampled_from(FOLDERS))
def test_no_granted_path_holds_a_private_one(tmp_path_factory, granted, private, bot):
    """Whatever sys.path and the bot's folder name, a grant never covers a private directory
    (a folder that holds it would), and the bot's own file is always readable."""
    root = tmp_path_factory.getbasetemp() / "tree"
    for folder in FOLDERS:
        (root / folder).mkdir(parents=True, exist_ok=True)
    bot_file = root / bot / "bot.py"
    bot_file.touch()
    kept = readable_paths([str(root / g) for g in granted] + [""], [str(bot_file), str(bot_file.parent)],
                          [str(root / p) for p in private])
    secrets = [(root / p).resolve() for p in private]
    for path in map(Path, kept):
        assert not any(path == s or path in s.parents for s in secrets), (path, private)
    assert str(bot_file.resolve()) in kept
    assert "" not in kept and all(Path(p).is_absolute() for p in kept)


def test_an_arena_result_always_says_how_it_was_obtained(tmp_path):
    from duckcover.players.arena import ArenaConfig, protections_report

    bot = tmp_path / "mine.py"
    bot.write_text("from duckcover.players.safety import PassiveBot as Mine\n")
    spec = f"{bot}:Mine"
    confined = protections_report(ArenaConfig((spec, "greedy"), deals=1))
    assert confined["confined_bots"] == [spec]
    assert confined["summary"] == HERE.summary() and confined["off"] == HERE.missing
    trusted = protections_report(ArenaConfig((spec, "greedy"), deals=1, trusted=True))
    assert trusted["confined_bots"] == [] and "--trusted" in trusted["summary"]
    assert trusted["warnings"] == ["trusted bots can read the deal and your files"]
    builtin = protections_report(ArenaConfig(("greedy", "random"), deals=1))
    assert "all built in" in builtin["summary"] and builtin["warnings"] == []


def test_every_test_the_bot_docs_cite_exists():
    """docs/bots.md names the test behind each line of its table: a renamed test must not leave
    a promise without proof."""
    import re

    root = Path(__file__).resolve().parent.parent
    docs = (root / "docs" / "bots.md").read_text(encoding="utf-8")
    defined = set()
    for path in (root / "tests").glob("test_*.py"):
        defined |= set(re.findall(r"^(?:async )?def (test_\w+)", path.read_text(encoding="utf-8"), re.M))
    cited = set(re.findall(r"\b(test_\w+)\b(?!\.py)", docs))  # test_x.py is a file
    assert cited and cited <= defined, sorted(cited - defined)
    from test_hostile_bots import HOSTILE

    parameters = set(re.findall(r"`\[(\w+)\]`", docs))
    assert parameters and parameters <= set(ATTACKS) | set(HOSTILE), sorted(parameters - set(ATTACKS) - set(HOSTILE))


def test_the_arena_table_says_how_bots_ran_and_warns_of_each_missing_wall(tmp_path, capsys):
    from duckcover.cli import main
    from duckcover.commands.arena import print_table
    from duckcover.players.arena import ArenaConfig, play_deal, report

    bot = tmp_path / "bots" / "mine.py"
    bot.parent.mkdir()
    bot.write_text("from duckcover.players.safety import PassiveBot as Mine\n")
    assert main(["arena", "--bot", f"{bot}:Mine", "--bot", "random", "--games", "1", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert f"How: {HERE.summary()}" in out
    assert out.count("Warning:") == len(HERE.missing)
    # The same table on an older kernel (a parameter): one warning per missing wall.
    config = ArenaConfig(("greedy", "random"), deals=1, seed=2)
    figures = report(config, [play_deal(config, 0)])
    figures["protections"] = Protections.of("linux", 3, False, True).to_json()
    print_table(figures)
    out = capsys.readouterr().out
    assert ("How: bots confined by the kernel (Landlock ABI 3, no seccomp); missing: network, signals, processes, "
            "limits, shared") in out
    for warning in (WALLS["network"], WALLS["signals"], WALLS["processes"], WALLS["limits"], WALLS["shared"]):
        assert f"Warning: {warning}" in out


SIMULATED_USER = """
import ctypes, struct
from pathlib import Path
from duckcover.players import confine

status = dict(line.split(":\\t") for line in Path("/proc/self/status").read_text().splitlines() if ":\\t" in line)
mask = int(status["CapEff"], 16) & ~(1 << 8)  # without CAP_SETPCAP, as an ordinary user has
low, high = mask & 0xFFFFFFFF, mask >> 32
assert ctypes.CDLL(None).capset(struct.pack("=Ii", confine.CAP_VERSION_3, 0),
                                 struct.pack("=6I", low, low, 0, high, high, 0)) == 0
confine.drop_capabilities()
after = dict(line.split(":\\t") for line in Path("/proc/self/status").read_text().splitlines() if ":\\t" in line)
print(after["CapEff"].strip(), after["CapPrm"].strip(), after["CapBnd"].strip())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.geteuid() != 0,
                    reason="needs Linux and root to play an ordinary user")
def test_a_user_who_cannot_empty_the_bounding_set_still_drops_every_capability_it_holds():
    """An ordinary user cannot drop the bounding set (no CAP_SETPCAP): that must not stop its
    bots (no_new_privs keeps an exec from raising anything from it); what it holds is dropped."""
    done = subprocess.run([sys.executable, "-c", SIMULATED_USER], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-1500:]
    effective, permitted, bounding = done.stdout.split()
    assert int(effective, 16) == 0 and int(permitted, 16) == 0
    assert int(bounding, 16) != 0  # it could not drop those, and that is all right


# The save of the game in progress holds every round's deck in draw order (the issue: 31 of 31).
SAVE_THIEF = """
import json
from duckcover.engine.cards import parse_flip


class Evil(PassiveBot):
    def observe(self, view, turn):
        seen = [f for t in view.history for f in t.flips]
        try:
            record = json.loads(open(SAVE).read())
            deck = [parse_flip(code) for code in record["rounds"][view.round_index]["deck"]]
            print("save ok")
        except OSError as err:
            deck = None
            print("save denied", err.errno)
        if deck is not None and len(seen) < len(deck):
            guess = deck[len(seen)]
        else:
            left = Counter(view.rules.deck()) - Counter(seen)
            guess = max(sorted(left), key=left.__getitem__) if left else 1
        print("P", view.round_index, len(seen), guess)
"""


def save_thief(tmp_path, protections):
    """The thief beside the save of this very game (as the app keeps it, in the data directory)."""
    passive, _ = play(PassiveBot())
    save = tmp_path / "data" / "games" / "in-progress.json"
    save.parent.mkdir(parents=True)
    save.write_text(json.dumps(to_record(passive)))
    keep_private(str(tmp_path / "data"))
    source = HEADER + f"SAVE = {str(save)!r}\n" + SAVE_THIEF
    return run_attack(tmp_path, source, protections=protections, limit=HONEST_LIMIT)


@needs_walls
def test_the_save_thief_predicts_the_next_flip_no_better_than_chance(tmp_path, passive_game):
    game, referee, output, _ = save_thief(tmp_path, None)
    hits, mean, var, count = flip_predictions(game, output)
    assert count > 40 and "save ok" not in output and "save denied 13" in output
    assert hits <= mean + 4 * var**0.5 + 1, (hits, mean, count)
    assert moves_of(game) == passive_game and not referee.fallbacks


def test_without_walls_the_save_thief_reads_every_flip(tmp_path):
    game, _, output, _ = save_thief(tmp_path, UNWALLED)
    hits, mean, var, count = flip_predictions(game, output)
    assert "save ok" in output
    assert hits >= count - 3 and hits > mean + 10 * var**0.5, (hits, mean, count)


# --- the seccomp program, run by a small BPF interpreter (every machine's, not only this one's) ----
def run_filter(program, arch: int, nr: int, args: tuple[int, ...] = (0, 0)) -> int:
    """What the kernel would return for a call: the classic BPF subset the filter uses."""
    from duckcover.players import confine

    words = {confine.DATA_NR: nr, confine.DATA_ARCH: arch}
    words.update({confine.DATA_ARG0 + 8 * i: a & 0xFFFFFFFF for i, a in enumerate(args)})
    accumulator, pc = 0, 0
    for _ in range(len(program) + 1):
        code, jt, jf, k = program[pc]
        if code == confine.BPF_LD_W_ABS:
            accumulator, pc = words[k], pc + 1
            continue
        if code == confine.BPF_RET:
            return k
        taken = {confine.BPF_JEQ: accumulator == k, confine.BPF_JSET: bool(accumulator & k),
                 confine.BPF_JGE: accumulator >= k}[code]
        pc += 1 + (jt if taken else jf)
    raise AssertionError("the program did not return")


def values_the_policy_tells_apart(own: int) -> list[int]:
    """Every argument value a rule of the policy names (its cases, `which`, the thread flag, 0
    and the bot's own pid), and the sign-extended forms of the largest."""
    from duckcover.players import confine

    named = {0, own, confine.CLONE_THREAD, confine.CLONE_THREAD | 0x11}
    for _name, rule, _why in confine.POLICY:
        if isinstance(rule, tuple) and rule[0] == "cases":
            named |= set(rule[2])
        elif isinstance(rule, tuple) and rule[0] == "priority":
            named.add(rule[1])
    values = named | {own + 1, -1, 2**31 - 1, 2**32 - 1}
    return sorted(values | {v - 2**32 for v in values if v >= 2**31})


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_compiled_filter_says_what_the_policy_table_says_on_every_call_it_tells_apart(machine):
    """Exhaustively, the BPF program and the table it is compiled from agree: every call number
    to 500, and every named call with each value a rule tells apart in either argument (the
    other 0 or the bot's pid: a rule reads one argument, or `which` and `who` together)."""
    from duckcover.players import confine

    own = 4242
    table = confine.SYSCALLS[machine]
    named = {n for key, n in table.items() if key != "arch" and n is not None}
    program = confine.seccomp_program(machine, own)
    values = values_the_policy_tells_apart(own)
    for nr in sorted(named | set(range(501))):
        pairs = [pair for v in values for w in (0, own) for pair in ((v, w), (w, v))] if nr in named else [(0, 0)]
        wrong = [args for args in pairs
                 if run_filter(program, table["arch"], nr, args) != confine.verdict(machine, own, nr, args)]
        assert not wrong, (machine, nr, wrong[:5])


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
@settings(max_examples=examples(60))
@given(data=st.data(), own=st.integers(2, 2**22))
def test_the_compiled_filter_says_what_the_policy_table_says(machine, data, own):
    """The BPF program and the table it is compiled from agree on random calls and arguments
    (the table's own reading, confine.verdict, is what the facts below pin down; the test above
    covers every value a rule tells apart, this one any pid and any argument)."""
    from duckcover.players import confine

    table = confine.SYSCALLS[machine]
    named = sorted({n for key, n in table.items() if key != "arch" and n is not None})
    nr = data.draw(st.one_of(st.sampled_from(named), st.integers(0, 500)), label="nr")
    chosen = st.one_of(st.integers(-2**31, 2**32 - 1), st.sampled_from([0, own, 1, 8, 10, 15, 1024, 0x5401]))
    args = tuple(data.draw(chosen, label=f"arg{i}") for i in range(2))
    program = confine.seccomp_program(machine, own)
    assert run_filter(program, table["arch"], nr, args) == confine.verdict(machine, own, nr, args), (machine, nr, args)


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_policy_refuses_what_the_attacks_of_issue_28_used(machine):
    """The facts, by name: what kills the bot, what fails with EPERM, what a thread and a
    library need."""
    from duckcover.players import confine

    own, game = 4242, 4000
    table = confine.SYSCALLS[machine]

    def judge(name: str, *args: int) -> str:
        verdict = confine.verdict(machine, own, table[name], (*args, 0, 0)[:2])
        return {v: k for k, v in confine.VERDICTS.items()}[verdict]

    killed = [("kill", game), ("kill", -game), ("kill", 0), ("tgkill", game), ("ptrace", 16),
              ("process_vm_readv", game), ("pidfd_getfd", 3), ("pidfd_send_signal", 3), ("prlimit64", game),
              ("setpriority", 0, game), ("setpriority", 2, 0), ("setpriority", 1, 0), ("sched_setaffinity", game),
              ("sched_setscheduler", game), ("ioprio_set", 1, game), ("ioprio_set", 3, 0), ("fcntl", 4, 8),
              ("fcntl", 4, 10), ("fcntl", 4, 15)]
    for call in killed:
        assert judge(*call) == confine.KILL, call
    assert [judge(*call) for call in [("kill", own), ("tgkill", own), ("prlimit64", 0), ("prlimit64", own),
                                      ("setpriority", 0, 0), ("fcntl", 4, 2), ("clone", confine.CLONE_THREAD | 0x3d0f00),
                                      ("prctl", confine.PR_SET_NAME), ("read", 0), ("futex", 0), ("mmap", 0)]] == \
        [confine.ALLOW] * 11
    assert judge("clone", 0x11) == judge("prctl", 1) == judge("fcntl", 4, 1024) == confine.EPERM  # fork, PR_SET_PDEATHSIG
    assert judge("clone3", 0) == confine.ENOSYS
    for missing in (57, 58, 59, 41, 29, 250, 425, 319, 272):  # x86_64: fork, vfork, execve, socket, shmget, keyctl, ...
        if machine == "x86_64":
            assert confine.verdict(machine, own, missing, (0, 0)) == confine.RET_ERRNO | 1, missing


def test_the_allow_list_is_short_and_every_entry_says_why():
    """Each entry names the call and which part of the interpreter (or which attack) it is there
    for; the calls allowed stay few (a longer list is a review, not a habit)."""
    from duckcover.players import confine

    names = [name for name, _, _ in confine.POLICY]
    assert len(names) == len(set(names))
    for name, rule, why in confine.POLICY:
        assert len(why) >= 8, name
        assert all(name in table for table in confine.SYSCALLS.values()), name
    allowed = [name for name, rule, _ in confine.POLICY if rule != confine.KILL]
    assert len(allowed) <= 110, len(allowed)
    assert {"fork", "vfork", "execve", "socket", "shmget", "keyctl", "memfd_create", "io_uring_setup", "unshare",
            "bpf", "mount", "setns"}.isdisjoint(names)


def test_the_filter_kills_a_call_of_another_architecture_or_the_x32_abi():
    from duckcover.players import confine

    program = confine.seccomp_program("x86_64", 100)
    assert run_filter(program, confine.SYSCALLS["aarch64"]["arch"], 0) == confine.RET_KILL_PROCESS
    x86 = confine.SYSCALLS["x86_64"]["arch"]
    assert run_filter(program, x86, confine.X32_SYSCALL_BIT | 1) == confine.RET_KILL_PROCESS
    assert run_filter(program, confine.SYSCALLS["x86_64"]["arch"], 0) == confine.RET_ALLOW  # read
