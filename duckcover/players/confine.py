"""The kernel's walls around a bot process, and what holds on this system.

A bot you did not write runs in a process of its own (duckcover.players.sandbox). On Linux that
process, before it imports the bot, puts itself behind walls that *allow* (what computing a
move needs) and refuse the rest, as OpenSSH's pre-authentication child and Chromium's renderer
do; a list of forbidden things always misses one (issue 28 found 17 such misses):
  - every capability dropped (bounding, ambient, effective, permitted, inheritable): CI runs
    as root, and root's CAP_SYS_PTRACE would read a non-dumpable game's memory anyway;
  - `no_new_privs`, so no later exec gives any back;
  - Landlock: read (and execute) only the interpreter, the standard library, site-packages,
    duckcover and the bot's own file (its package folder for a package): never the folder a
    single-file bot lies in, the working directory, the home or the data directory; no writes
    anywhere; no TCP connect or bind (ABI >= 4); signals and abstract unix sockets scoped to
    itself (ABI >= 6);
  - a seccomp allow-list (POLICY): the system calls a CPython interpreter makes to import pure
    Python, compute, run threads and talk on its pipes, each argument that names a process
    limited to the bot itself. A call that can only be aimed at another process (its memory,
    signals, limits, scheduling) kills the bot with SIGSYS and the Referee names it; any other
    call off the list fails with EPERM, so an honest library (platform.processor() starting
    `uname`) gets an OSError it can handle.
The game process makes itself non-dumpable (`protect_game_process`) before any bot starts,
so no process of the same user reads its memory, descriptors or environment through /proc.

A small ctypes layer, not a PyPI binding: the only maintained Landlock binding (`landlock`,
a pre-release) does no seccomp and the seccomp bindings need libseccomp installed; these are
four syscalls and a BPF program compiled from one table, in the standard library.

`Protections` says which walls hold: computed from the kernel (`available`), or from given
facts (`Protections.of`) so tests can ask for an older kernel by a parameter. No Textual, no
duckcover imports: a leaf the sandbox, the arena and the app all use.
"""
from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

LINUX = sys.platform.startswith("linux")

# --- prctl ------------------------------------------------------------------------------------
PR_SET_DUMPABLE, PR_GET_DUMPABLE = 4, 3
PR_SET_SECCOMP, PR_GET_SECCOMP = 22, 21
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
SECCOMP_MODE_FILTER = 2
CAP_VERSION_3 = 0x20080522
CAP_LAST_POSSIBLE = 63

# --- Landlock (include/uapi/linux/landlock.h) ----------------------------------------------------
SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION = 1
# Where the three Landlock syscalls have the numbers above (not alpha, mips, ia64: no Landlock there)
GENERIC_SYSCALL_MACHINES = {"x86_64", "aarch64", "arm64", "riscv64", "ppc64le", "ppc64", "s390x", "armv7l",
                            "armv6l", "i686", "i386", "loongarch64"}
LANDLOCK_RULE_PATH_BENEATH = 1
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_ABI1 = (1 << 13) - 1  # execute ... make_sym
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15  # ABI 2, 3, 5
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6
READ_DIR_RIGHTS = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
READ_FILE_RIGHTS = FS_EXECUTE | FS_READ_FILE

# System directories Python's own C extensions load shared libraries from (dlopen reads them
# and /etc/ld.so.cache); world-readable, and named in docs/bots.md as readable by a bot.
LIBRARY_DIRS = ("/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/local/lib")
LIBRARY_FILES = ("/etc/ld.so.cache",)
DEVICES_READ = ("/dev/urandom", "/dev/random")
DEVICES_READ_WRITE = ("/dev/null",)

# --- seccomp BPF ---------------------------------------------------------------------------------
BPF_LD_W_ABS, BPF_JEQ, BPF_JSET, BPF_JGE, BPF_RET = 0x20, 0x15, 0x45, 0x35, 0x06
RET_ALLOW, RET_KILL_PROCESS, RET_ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
CLONE_THREAD = 0x00010000
X32_SYSCALL_BIT = 0x40000000
# seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8 i (the low half on a little-endian machine;
# every argument checked below is an int, a pid_t or a command the kernel reads as 32 bits)
DATA_NR, DATA_ARCH, DATA_ARG0 = 0, 4, 16
PRIO_PROCESS, IOPRIO_WHO_PROCESS = 0, 1
F_SETOWN, F_SETSIG, F_SETOWN_EX, F_SETLEASE, F_NOTIFY = 8, 10, 15, 1024, 1026
# prctl options that read, or change this process alone (PR_SET_PDEATHSIG is not one: it is fixed)
PR_GET_PDEATHSIG, PR_GET_KEEPCAPS, PR_SET_NAME, PR_GET_NAME = 2, 7, 15, 16
PR_CAPBSET_READ, PR_GET_TIMERSLACK, PR_GET_NO_NEW_PRIVS, PR_GET_THP_DISABLE = 23, 30, 39, 42
PR_SET_VMA = 0x53564D41  # glibc >= 2.35 names its anonymous mappings
# ioctl commands on its own descriptors: is it a terminal, how much is there to read, close-on-exec
TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIONCLEX, FIOCLEX = 0x5401, 0x5413, 0x541B, 0x5421, 0x5450, 0x5451


def _arg(index: int) -> int:
    return DATA_ARG0 + 8 * index


# The verdicts. A call outside the list fails with EPERM: an honest library that tries to start
# a process (platform.processor()) or open a socket gets an OSError it can handle. A call that
# can only be aimed at someone else (another process's memory, signals, limits or scheduling)
# kills the bot (SIGSYS): the Referee names it.
ALLOW, KILL, EPERM, ENOSYS = "allow", "kill", "eperm", "enosys"

# The allow-list: (system call, rule, which part of the interpreter needs it). A rule is ALLOW,
# KILL, ("pid", arg, else) - allowed when argument `arg` is 0 or the bot's own pid -,
# ("own", arg, else) - only its own pid -, ("priority", which, else) - `which` (PRIO_PROCESS,
# IOPRIO_WHO_PROCESS) of 0 or itself -,
# ("thread",) - clone of a thread -, ("cases", arg, {value: verdict}, default), or ENOSYS.
# tests/test_bot_confinement.py keeps it short and every entry explained.
POLICY: tuple[tuple[str, object, str], ...] = (
    # the pipes, its output file and the files it imports (Landlock says which files)
    ("read", ALLOW, "its request pipe; module files it imports"),
    ("write", ALLOW, "its answer pipe; print() to its output file"),
    ("futex", ALLOW, "the GIL and every lock between threads"),
    ("readv", ALLOW, "buffered reads"),
    ("writev", ALLOW, "buffered writes"),
    ("pread64", ALLOW, "zipimport and the loader's reads at an offset"),
    ("pwrite64", ALLOW, "writes at an offset to its own files"),
    ("lseek", ALLOW, "file objects' tell() and seek()"),
    ("close", ALLOW, "closing what it opened"),
    ("dup", ALLOW, "os.dup, file objects"),
    ("dup2", ALLOW, "os.dup2 (x86_64)"),
    ("dup3", ALLOW, "os.dup2 and dup3 in libc"),
    ("fstat", ALLOW, "open() asks the size and kind of a file"),
    ("stat", ALLOW, "os.stat (x86_64's older call)"),
    ("lstat", ALLOW, "os.lstat (x86_64's older call)"),
    ("newfstatat", ALLOW, "os.stat: the import system looks at every path"),
    ("statx", ALLOW, "os.stat on newer libcs"),
    ("fstatfs", ALLOW, "libc asks what a file system is (shared memory checks)"),
    ("open", ALLOW, "open (x86_64's older call)"),
    ("openat", ALLOW, "open(): modules, its own file"),
    ("getdents64", ALLOW, "os.listdir / scandir: the import system lists package folders"),
    ("getdents", ALLOW, "the older listdir (x86_64)"),
    ("readlink", ALLOW, "os.readlink (x86_64's older call)"),
    ("readlinkat", ALLOW, "os.path.realpath"),
    ("access", ALLOW, "os.access (x86_64's older call)"),
    ("faccessat", ALLOW, "os.access"),
    ("faccessat2", ALLOW, "os.access on newer libcs"),
    ("getcwd", ALLOW, "os.getcwd (the import system's '' entry)"),
    ("fcntl", ("cases", 1, {F_SETOWN: KILL, F_SETOWN_EX: KILL, F_SETSIG: KILL, F_SETLEASE: EPERM,
                            F_NOTIFY: EPERM}, ALLOW),
     "close-on-exec and blocking flags; never a signal owner (that signals another process)"),
    ("ioctl", ("cases", 1, {TCGETS: ALLOW, TIOCGWINSZ: ALLOW, FIONREAD: ALLOW, FIONBIO: ALLOW, FIONCLEX: ALLOW,
                            FIOCLEX: ALLOW}, EPERM),
     "isatty(), terminal size, bytes to read, blocking and close-on-exec flags"),
    ("pipe", ALLOW, "os.pipe (x86_64's older call)"),
    ("pipe2", ALLOW, "os.pipe: a pipe inside itself"),
    ("poll", ALLOW, "select.poll (x86_64's older call)"),
    ("ppoll", ALLOW, "select.poll"),
    ("select", ALLOW, "select.select (x86_64's older call)"),
    ("pselect6", ALLOW, "select.select"),
    ("epoll_create", ALLOW, "asyncio's selector (x86_64's older call)"),
    ("epoll_create1", ALLOW, "asyncio's selector"),
    ("epoll_ctl", ALLOW, "asyncio's selector"),
    ("epoll_wait", ALLOW, "asyncio's selector (x86_64's older call)"),
    ("epoll_pwait", ALLOW, "asyncio's selector"),
    # memory
    ("brk", ALLOW, "malloc grows the heap"),
    ("mmap", ALLOW, "malloc, pymalloc's arenas, shared libraries of C extensions"),
    ("munmap", ALLOW, "freeing memory"),
    ("mremap", ALLOW, "realloc of large blocks"),
    ("mprotect", ALLOW, "the dynamic loader; thread stacks' guard pages"),
    ("madvise", ALLOW, "malloc gives memory back"),
    ("membarrier", ALLOW, "libc's and the loader's memory barriers"),
    # threads (never a process: clone is allowed only with CLONE_THREAD)
    ("clone", ("thread",), "threading.Thread; never a new process"),
    ("clone3", ENOSYS, "its flags are behind a pointer: ENOSYS makes libc fall back to clone"),
    ("set_robust_list", ALLOW, "every new thread"),
    ("get_robust_list", ("pid", 0, EPERM), "glibc's thread start"),
    ("set_tid_address", ALLOW, "every new thread"),
    ("rseq", ALLOW, "glibc registers each thread"),
    ("arch_prctl", ALLOW, "x86_64 thread-local storage of this process"),
    ("exit", ALLOW, "a thread ends"),
    ("exit_group", ALLOW, "the process ends"),
    ("gettid", ALLOW, "threading.get_native_id"),
    ("getpid", ALLOW, "os.getpid"),
    ("getppid", ALLOW, "os.getppid (the game's pid: it can do nothing with it)"),
    ("sched_yield", ALLOW, "giving up the GIL"),
    ("sched_getaffinity", ("pid", 0, EPERM), "os.cpu_count, os.sched_getaffinity(0)"),
    ("getcpu", ALLOW, "which CPU it runs on"),
    # signals, to itself only
    ("rt_sigaction", ALLOW, "signal.signal"),
    ("rt_sigprocmask", ALLOW, "threads block signals"),
    ("rt_sigreturn", ALLOW, "return from a signal handler"),
    ("sigaltstack", ALLOW, "faulthandler's stack"),
    ("rt_sigsuspend", ALLOW, "signal.pause"),
    ("rt_sigtimedwait", ALLOW, "signal.sigtimedwait"),
    ("restart_syscall", ALLOW, "a call interrupted by a signal resumes"),
    ("kill", ("own", 0, KILL), "os.kill(os.getpid(), ...): its own pid only"),
    ("tgkill", ("own", 0, KILL), "signal.pthread_kill: a thread of its own"),
    # who and what it is
    ("getuid", ALLOW, "os.getuid, os.path.expanduser"),
    ("geteuid", ALLOW, "os.geteuid"),
    ("getgid", ALLOW, "os.getgid"),
    ("getegid", ALLOW, "os.getegid"),
    ("getresuid", ALLOW, "os.getresuid"),
    ("getresgid", ALLOW, "os.getresgid"),
    ("getgroups", ALLOW, "os.getgroups"),
    ("uname", ALLOW, "platform, os.uname"),
    ("sysinfo", ALLOW, "libc's count of memory and processors"),
    ("getrandom", ALLOW, "random, os.urandom, hash seeds"),
    # time
    ("clock_gettime", ALLOW, "time.time, time.monotonic (usually in the vDSO)"),
    ("clock_getres", ALLOW, "time.get_clock_info"),
    ("gettimeofday", ALLOW, "older time calls"),
    ("time", ALLOW, "time() (x86_64)"),
    ("nanosleep", ALLOW, "time.sleep"),
    ("clock_nanosleep", ALLOW, "time.sleep"),
    ("getitimer", ALLOW, "signal.getitimer"),
    ("setitimer", ALLOW, "signal.setitimer: its own timers"),
    ("alarm", ALLOW, "signal.alarm (x86_64): its own alarm"),
    ("times", ALLOW, "os.times"),
    ("getrusage", ALLOW, "resource.getrusage"),
    # limits and priority: of itself, never of another process or the user's
    ("prlimit64", ("pid", 0, KILL), "resource.getrlimit/setrlimit: its own limits only"),
    ("getrlimit", ALLOW, "resource.getrlimit (its own)"),
    ("getpriority", ("priority", PRIO_PROCESS, EPERM), "os.getpriority(PRIO_PROCESS, 0)"),
    ("setpriority", ("priority", PRIO_PROCESS, KILL), "os.nice: itself only, never PRIO_USER or PRIO_PGRP"),
    ("prctl", ("cases", 0, {PR_GET_PDEATHSIG: ALLOW, PR_GET_DUMPABLE: ALLOW, PR_GET_KEEPCAPS: ALLOW,
                            PR_SET_NAME: ALLOW, PR_GET_NAME: ALLOW, PR_GET_SECCOMP: ALLOW, PR_CAPBSET_READ: ALLOW,
                            PR_GET_TIMERSLACK: ALLOW, PR_GET_NO_NEW_PRIVS: ALLOW, PR_GET_THP_DISABLE: ALLOW,
                            PR_SET_VMA: ALLOW}, EPERM),
     "thread names and questions about itself; never PR_SET_PDEATHSIG"),
    # aimed at another process: the bot is killed and named
    ("ptrace", KILL, "another process's memory"),
    ("process_vm_readv", KILL, "another process's memory"),
    ("process_vm_writev", KILL, "another process's memory"),
    ("process_madvise", KILL, "another process's memory"),
    ("process_mrelease", KILL, "another process's memory"),
    ("migrate_pages", KILL, "another process's memory"),
    ("move_pages", KILL, "another process's memory"),
    ("kcmp", KILL, "compares another process's descriptors"),
    ("pidfd_getfd", KILL, "takes another process's descriptor"),
    ("pidfd_send_signal", KILL, "signals another process"),
    ("tkill", KILL, "a signal to a thread it cannot prove its own"),
    ("rt_sigqueueinfo", ("own", 0, KILL), "a queued signal: to itself only"),
    ("rt_tgsigqueueinfo", ("own", 0, KILL), "a queued signal: to itself only"),
    ("sched_setaffinity", ("pid", 0, KILL), "pinning: itself only"),
    ("sched_setscheduler", ("pid", 0, KILL), "scheduling class: itself only"),
    ("sched_setparam", ("pid", 0, KILL), "scheduling priority: itself only"),
    ("sched_setattr", ("pid", 0, KILL), "scheduling: itself only"),
    ("ioprio_set", ("priority", IOPRIO_WHO_PROCESS, KILL), "I/O priority: of itself only"),
)
# Everything else (fork, vfork, execve, socket, SysV IPC, keyrings, io_uring, memfd_create,
# unshare, mount, bpf, ...) fails with EPERM.

# The numbers of every call the policy names, from the kernel's uapi headers (x86_64:
# asm/unistd_64.h; aarch64: asm-generic/unistd.h). None: the call does not exist there.
SYSCALLS = {
    "x86_64": dict(arch=0xC000003E, **{name: nr for name, nr in (
        ("read", 0), ("write", 1), ("futex", 202), ("readv", 19), ("writev", 20), ("pread64", 17),
        ("pwrite64", 18), ("lseek", 8), ("close", 3), ("dup", 32), ("dup2", 33), ("dup3", 292), ("fstat", 5),
        ("stat", 4), ("lstat", 6), ("newfstatat", 262), ("statx", 332), ("fstatfs", 138), ("open", 2),
        ("openat", 257), ("getdents64", 217), ("getdents", 78), ("readlink", 89), ("readlinkat", 267),
        ("access", 21), ("faccessat", 269), ("faccessat2", 439), ("getcwd", 79), ("fcntl", 72), ("ioctl", 16),
        ("pipe", 22), ("pipe2", 293), ("poll", 7), ("ppoll", 271), ("select", 23), ("pselect6", 270),
        ("epoll_create", 213), ("epoll_create1", 291), ("epoll_ctl", 233), ("epoll_wait", 232),
        ("epoll_pwait", 281), ("brk", 12), ("mmap", 9), ("munmap", 11), ("mremap", 25), ("mprotect", 10),
        ("madvise", 28), ("membarrier", 324), ("clone", 56), ("clone3", 435), ("set_robust_list", 273),
        ("get_robust_list", 274), ("set_tid_address", 218), ("rseq", 334), ("arch_prctl", 158), ("exit", 60),
        ("exit_group", 231), ("gettid", 186), ("getpid", 39), ("getppid", 110), ("sched_yield", 24),
        ("sched_getaffinity", 204), ("getcpu", 309), ("rt_sigaction", 13), ("rt_sigprocmask", 14),
        ("rt_sigreturn", 15), ("sigaltstack", 131), ("rt_sigsuspend", 130), ("rt_sigtimedwait", 128),
        ("restart_syscall", 219), ("kill", 62), ("tgkill", 234), ("getuid", 102), ("geteuid", 107),
        ("getgid", 104), ("getegid", 108), ("getresuid", 118), ("getresgid", 120), ("getgroups", 115),
        ("uname", 63), ("sysinfo", 99), ("getrandom", 318), ("clock_gettime", 228), ("clock_getres", 229),
        ("gettimeofday", 96), ("time", 201), ("nanosleep", 35), ("clock_nanosleep", 230), ("getitimer", 36),
        ("setitimer", 38), ("alarm", 37), ("times", 100), ("getrusage", 98), ("prlimit64", 302),
        ("getrlimit", 97), ("getpriority", 140), ("setpriority", 141), ("prctl", 157), ("ptrace", 101),
        ("process_vm_readv", 310), ("process_vm_writev", 311), ("process_madvise", 440),
        ("process_mrelease", 448), ("migrate_pages", 256), ("move_pages", 279), ("kcmp", 312),
        ("pidfd_getfd", 438), ("pidfd_send_signal", 424), ("tkill", 200), ("rt_sigqueueinfo", 129),
        ("rt_tgsigqueueinfo", 297), ("sched_setaffinity", 203), ("sched_setscheduler", 144),
        ("sched_setparam", 142), ("sched_setattr", 314), ("ioprio_set", 251),
    )}),
    "aarch64": dict(arch=0xC00000B7, **{name: nr for name, nr in (
        ("read", 63), ("write", 64), ("futex", 98), ("readv", 65), ("writev", 66), ("pread64", 67),
        ("pwrite64", 68), ("lseek", 62), ("close", 57), ("dup", 23), ("dup2", None), ("dup3", 24), ("fstat", 80),
        ("stat", None), ("lstat", None), ("newfstatat", 79), ("statx", 291), ("fstatfs", 44), ("open", None),
        ("openat", 56), ("getdents64", 61), ("getdents", None), ("readlink", None), ("readlinkat", 78),
        ("access", None), ("faccessat", 48), ("faccessat2", 439), ("getcwd", 17), ("fcntl", 25), ("ioctl", 29),
        ("pipe", None), ("pipe2", 59), ("poll", None), ("ppoll", 73), ("select", None), ("pselect6", 72),
        ("epoll_create", None), ("epoll_create1", 20), ("epoll_ctl", 21), ("epoll_wait", None),
        ("epoll_pwait", 22), ("brk", 214), ("mmap", 222), ("munmap", 215), ("mremap", 216), ("mprotect", 226),
        ("madvise", 233), ("membarrier", 283), ("clone", 220), ("clone3", 435), ("set_robust_list", 99),
        ("get_robust_list", 100), ("set_tid_address", 96), ("rseq", 293), ("arch_prctl", None), ("exit", 93),
        ("exit_group", 94), ("gettid", 178), ("getpid", 172), ("getppid", 173), ("sched_yield", 124),
        ("sched_getaffinity", 123), ("getcpu", 168), ("rt_sigaction", 134), ("rt_sigprocmask", 135),
        ("rt_sigreturn", 139), ("sigaltstack", 132), ("rt_sigsuspend", 133), ("rt_sigtimedwait", 137),
        ("restart_syscall", 128), ("kill", 129), ("tgkill", 131), ("getuid", 174), ("geteuid", 175),
        ("getgid", 176), ("getegid", 177), ("getresuid", 148), ("getresgid", 150), ("getgroups", 158),
        ("uname", 160), ("sysinfo", 179), ("getrandom", 278), ("clock_gettime", 113), ("clock_getres", 114),
        ("gettimeofday", 169), ("time", None), ("nanosleep", 101), ("clock_nanosleep", 115), ("getitimer", 102),
        ("setitimer", 103), ("alarm", None), ("times", 153), ("getrusage", 165), ("prlimit64", 261),
        ("getrlimit", 163), ("getpriority", 141), ("setpriority", 140), ("prctl", 167), ("ptrace", 117),
        ("process_vm_readv", 270), ("process_vm_writev", 271), ("process_madvise", 440),
        ("process_mrelease", 448), ("migrate_pages", 238), ("move_pages", 239), ("kcmp", 272),
        ("pidfd_getfd", 438), ("pidfd_send_signal", 424), ("tkill", 130), ("rt_sigqueueinfo", 138),
        ("rt_tgsigqueueinfo", 240), ("sched_setaffinity", 122), ("sched_setscheduler", 119),
        ("sched_setparam", 118), ("sched_setattr", 274), ("ioprio_set", 30),
    )}),
}



class ConfineError(OSError):
    """A wall the kernel offers could not be put up: the bot must not run."""


# --- what holds ---------------------------------------------------------------------------------
# Each wall, and what a missing one means, in the words the arena prints and the app shows.
WALLS = {
    "memory": "bots on this system can read the game's memory (and so the deal)",
    "files": "bots on this system can read your files",
    "network": "bots on this system can use the network",
    "signals": "bots on this system can signal or stop the game",
    "processes": "bots on this system can start processes that outlive the game",
    "limits": "bots on this system can change the limits and priority of the game and your other programs",
    "shared": "bots on this system can reach shared memory and keys of your user",
    "privileges": "bots on this system keep the privileges of your user",
}


@dataclass(frozen=True)
class Protections:
    """Which walls stand around a bot process here. `landlock_abi` 0: none; `seccomp`: filters."""

    system: str
    landlock_abi: int
    seccomp: bool
    game_undumpable: bool
    held: frozenset[str] = field(default=frozenset())

    @classmethod
    def of(cls, system: str, landlock_abi: int, seccomp: bool, game_undumpable: bool | None = None) -> Protections:
        """What a system with these facts defends (the parameter is how tests ask for an older kernel)."""
        linux = system == "linux"
        abi = landlock_abi if linux else 0
        seccomp = seccomp and linux and platform.machine() in SYSCALLS
        undumpable = linux if game_undumpable is None else game_undumpable and linux
        held = {name for name, on in (
            ("memory", undumpable),  # /proc/<game>/mem (root: its capabilities go too, below)
            ("files", abi >= 1),
            ("network", abi >= 4 or seccomp),  # Landlock's TCP rules; the allow-list has no socket()
            # kill() and F_SETOWN + F_SETSIG on its own pipe: the allow-list checks both on any
            # seccomp kernel; Landlock scopes both from ABI 6 (not before: issue 28)
            ("signals", abi >= 6 or seccomp),
            ("processes", seccomp),  # no fork, vfork, exec; clone only of a thread
            ("limits", seccomp),  # prlimit64, setpriority, sched_*, ioprio_set: of itself only
            ("shared", seccomp),  # SysV IPC and keyrings are not on the allow-list
            ("privileges", linux),
        ) if on}
        return cls(system, abi, seccomp, undumpable, frozenset(held))

    @property
    def missing(self) -> list[str]:
        return [name for name in WALLS if name not in self.held]

    @property
    def complete(self) -> bool:
        return not self.missing

    def warnings(self) -> list[str]:
        """One sentence per missing wall."""
        return [WALLS[name] for name in self.missing]

    def summary(self) -> str:
        """How a bot process is confined here, in one line."""
        if self.system != "linux":
            return f"bots run in their own process only ({self.system}: no kernel confinement)"
        parts = [f"Landlock ABI {self.landlock_abi}" if self.landlock_abi else "no Landlock",
                 "seccomp" if self.seccomp else "no seccomp"]
        state = "all walls hold" if self.complete else "missing: " + ", ".join(self.missing)
        return f"bots confined by the kernel ({', '.join(parts)}); {state}"

    def to_json(self) -> dict:
        return {"system": self.system, "landlock_abi": self.landlock_abi, "seccomp": self.seccomp,
                "on": sorted(self.held), "off": self.missing, "warnings": self.warnings(), "summary": self.summary()}


@cache
def available() -> Protections:
    """What this system's kernel offers (probed once)."""
    system = "linux" if LINUX else sys.platform
    return Protections.of(system, landlock_abi() if LINUX else 0, seccomp_available() if LINUX else False,
                          game_undumpable=protect_game_process() if LINUX else False)


# --- the kernel, through ctypes ------------------------------------------------------------------
@cache
def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.prctl.restype = ctypes.c_int
    return libc


def _check(result: int, what: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise ConfineError(code, f"{what}: {os.strerror(code)}")
    return result


def _prctl(option: int, *args: int) -> int:
    return _libc().prctl(ctypes.c_int(option), *(ctypes.c_ulong(a) for a in args))


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers; 0 if none (or disabled at boot)."""
    if not LINUX or platform.machine() not in GENERIC_SYSCALL_MACHINES:
        return 0
    try:
        result = _libc().syscall(ctypes.c_long(SYS_LANDLOCK_CREATE_RULESET), None, ctypes.c_size_t(0),
                                 ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(0, int(result))


def seccomp_available() -> bool:
    """Seccomp filters work here (PR_GET_SECCOMP answers) and this machine's syscalls are known."""
    if not LINUX or platform.machine() not in SYSCALLS:
        return False
    try:
        return _prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0
    except (OSError, AttributeError):
        return False


@cache
def protect_game_process() -> bool:
    """Make the game's process non-dumpable: no process of the same user can then read its
    memory, descriptors or environment through /proc (or ptrace it). Once, before any bot."""
    if not LINUX:
        return False
    try:
        return _prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 and _prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


# --- what a bot may read -------------------------------------------------------------------------
def readable_paths(sys_path: list[str], bot_code: list[str], private: list[str],
                   installed: list[str] | None = None) -> list[str]:
    """The paths a bot process may read (an allow-list): the interpreter, the system's shared
    libraries, the entries of sys.path that are part of the installation (the standard library,
    site-packages: `installed`) and the bot's own code; never another sys.path entry (the
    working directory, a folder on PYTHONPATH), and never a path that is or holds a private one
    (the data directory, the home directory). Absolute, existing."""
    secrets = [Path(p).resolve() for p in private if p]
    places = [Path(p).resolve() for p in (installed_places() if installed is None else installed)]
    from_path = [entry for entry in sys_path if entry and _inside_any(Path(entry).resolve(), places)]
    candidates = [os.path.realpath(sys.executable), *LIBRARY_DIRS, *LIBRARY_FILES, *from_path, *bot_code]
    kept: list[str] = []
    for entry in candidates:
        path = Path(entry).resolve()
        if not entry or not path.exists() or any(path == s or path in s.parents for s in secrets):
            continue
        if str(path) not in kept:
            kept.append(str(path))
    return kept


def _inside_any(path: Path, places: list[Path]) -> bool:
    return any(path == place or place in path.parents for place in places)


def installed_places() -> list[str]:
    """Where this interpreter's own code and installed packages live: the standard library (and
    its C extensions), site-packages. Nothing a user's working directory or PYTHONPATH adds."""
    import site
    import sysconfig

    paths = sysconfig.get_paths()
    places = [paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths]
    try:
        places += site.getsitepackages()
    except AttributeError:  # an old virtualenv's site module
        pass
    return [p for p in dict.fromkeys(places) if p]


_PRIVATE: list[str] = []


def keep_private(path: str) -> None:
    """Name a directory no bot may read, even where it lies inside one a bot may (the command
    line names the data directory: this module cannot know where the saves live)."""
    if path and path not in _PRIVATE:
        _PRIVATE.append(path)


def private_paths() -> list[str]:
    """Directories a bot must never read even when they hold a path it may: the home directory
    and those named by keep_private."""
    home = os.path.expanduser("~")
    return ([home] if home and home != "/" else []) + _PRIVATE


# --- a bot process confines itself ---------------------------------------------------------------
def confine_self(protections: Protections, readable: list[str]) -> None:
    """Put up every wall `protections` says this system has, in this (bot) process; ConfineError
    if one fails. Call it before any bot code runs, with no other thread started."""
    if protections.system != "linux":
        return
    drop_capabilities()
    _check(_prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if protections.landlock_abi >= 1:
        landlock(protections.landlock_abi, readable)
    if protections.seccomp:
        install_seccomp(os.getpid())


def drop_capabilities() -> None:
    """Empty the bounding and ambient sets (root in CI: CAP_SETPCAP lets it), then the
    effective, permitted and inheritable sets."""
    for cap in range(CAP_LAST_POSSIBLE + 1):
        if _prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 and ctypes.get_errno() == errno.EINVAL:
            break  # past the last capability this kernel knows
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)  # EINVAL on kernels before 4.3: none to clear
    header = struct.pack("=Ii", CAP_VERSION_3, 0)
    data = bytes(24)  # two {effective, permitted, inheritable} u32 triples, all zero
    _check(_libc().capset(ctypes.c_char_p(header), ctypes.c_char_p(data)), "capset")
    if capabilities_left():
        held = ", ".join(capabilities_left())
        raise ConfineError(errno.EPERM, f"capabilities are still held after dropping them: {held}")


# The sets that must be empty. Not the bounding set: a user without CAP_SETPCAP cannot empty it
# (root can, and does above), and under no_new_privs no exec raises a capability from it.
HELD_SETS = ("CapInh", "CapPrm", "CapEff", "CapAmb")


def capabilities_left() -> list[str]:
    """The capability sets of this process that must be empty and are not (/proc/self/status)."""
    try:
        lines = Path("/proc/self/status").read_text().splitlines()
    except OSError:
        return []
    held = []
    for line in lines:
        name, _, value = line.partition(":")
        if name in HELD_SETS and int(value.strip() or "0", 16):
            held.append(name)
    return held


def handled_fs(abi: int) -> int:
    rights = FS_ABI1
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def landlock(abi: int, readable: list[str]) -> None:
    """A Landlock domain: every file-system access handled, only `readable` (and the devices)
    granted; TCP handled with no port granted (ABI >= 4); signals and abstract sockets scoped."""
    net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    fs = handled_fs(abi)
    attr = struct.pack("=QQQ", fs, net, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    libc = _libc()
    ruleset = _check(libc.syscall(ctypes.c_long(SYS_LANDLOCK_CREATE_RULESET), ctypes.c_char_p(attr),
                                  ctypes.c_size_t(size), ctypes.c_uint32(0)), "landlock_create_ruleset")
    try:
        grants = [(p, READ_DIR_RIGHTS if os.path.isdir(p) else READ_FILE_RIGHTS) for p in readable]
        grants += [(p, FS_READ_FILE) for p in DEVICES_READ]
        grants += [(p, FS_READ_FILE | FS_WRITE_FILE) for p in DEVICES_READ_WRITE]
        for path, rights in grants:
            _grant(ruleset, path, rights & fs)
        _check(libc.syscall(ctypes.c_long(SYS_LANDLOCK_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)),
               "landlock_restrict_self")
    finally:
        os.close(ruleset)


def _grant(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # not on this system
    try:
        rule = struct.pack("=Qi", rights, fd)  # landlock_path_beneath_attr is packed: 12 bytes
        _check(_libc().syscall(ctypes.c_long(SYS_LANDLOCK_ADD_RULE), ctypes.c_int(ruleset),
                               ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH), ctypes.c_char_p(rule), ctypes.c_uint32(0)),
               f"landlock_add_rule {path}")
    finally:
        os.close(fd)


VERDICTS = {ALLOW: RET_ALLOW, KILL: RET_KILL_PROCESS, EPERM: RET_ERRNO | errno.EPERM,
            ENOSYS: RET_ERRNO | errno.ENOSYS}


def verdict(machine: str, own_pid: int, nr: int, args: tuple[int, ...]) -> int:
    """What the policy says of one call, read straight from POLICY (the program below is
    compiled from the same table; a test runs both on random calls and compares)."""
    numbers = SYSCALLS[machine]
    for name, rule, _why in POLICY:
        if numbers[name] == nr:
            return VERDICTS[_judge(rule, own_pid, [a & 0xFFFFFFFF for a in args])]
    return VERDICTS[EPERM]


def _judge(rule, own: int, args: list[int]) -> str:
    if isinstance(rule, str):
        return rule
    kind = rule[0]
    if kind == "thread":
        return ALLOW if args[0] & CLONE_THREAD else EPERM
    if kind == "pid":
        return ALLOW if args[rule[1]] in (0, own) else rule[2]
    if kind == "own":
        return ALLOW if args[rule[1]] == own else rule[2]
    if kind == "priority":
        return ALLOW if args[0] == rule[1] and args[1] in (0, own) else rule[2]
    _, index, cases, default = rule  # "cases"
    return cases.get(args[index], default)


def seccomp_program(machine: str, own_pid: int) -> list[tuple[int, int, int, int]]:
    """POLICY as BPF instructions (code, jt, jf, k) for `machine`: the architecture checked, then
    one block per call of the list, each ending in a return; anything else gets EPERM."""
    numbers = SYSCALLS[machine]
    kill = (BPF_RET, 0, 0, RET_KILL_PROCESS)
    program = [(BPF_LD_W_ABS, 0, 0, DATA_ARCH), (BPF_JEQ, 1, 0, numbers["arch"]), kill, (BPF_LD_W_ABS, 0, 0, DATA_NR)]
    if machine == "x86_64":  # the x32 ABI's numbers would pass every check below
        program += [(BPF_JGE, 0, 1, X32_SYSCALL_BIT), kill]
    for name, rule, _why in POLICY:
        if numbers[name] is not None:
            block = _block(rule, own_pid)
            program += [(BPF_JEQ, 0, len(block), numbers[name]), *block]
    program.append((BPF_RET, 0, 0, VERDICTS[EPERM]))
    return program


def _block(rule, own: int) -> list[tuple[int, int, int, int]]:
    """The instructions after a call's number matched; every path ends in a return."""
    def ret(what: str) -> tuple[int, int, int, int]:
        return (BPF_RET, 0, 0, VERDICTS[what])

    def load(index: int) -> tuple[int, int, int, int]:
        return (BPF_LD_W_ABS, 0, 0, _arg(index))

    if isinstance(rule, str):
        return [ret(rule)]
    kind = rule[0]
    if kind == "thread":
        return [load(0), (BPF_JSET, 1, 0, CLONE_THREAD), ret(EPERM), ret(ALLOW)]
    if kind == "pid":
        return [load(rule[1]), (BPF_JEQ, 2, 0, 0), (BPF_JEQ, 1, 0, own), ret(rule[2]), ret(ALLOW)]
    if kind == "own":
        return [load(rule[1]), (BPF_JEQ, 1, 0, own), ret(rule[2]), ret(ALLOW)]
    if kind == "priority":  # `which` is rule[1] and `who` is 0 or itself
        return [load(0), (BPF_JEQ, 0, 3, rule[1]), load(1), (BPF_JEQ, 2, 0, 0), (BPF_JEQ, 1, 0, own),
                ret(rule[2]), ret(ALLOW)]
    _, index, cases, default = rule  # "cases": one comparison per value, then the default
    block = [load(index)]
    for value, what in cases.items():
        block += [(BPF_JEQ, 0, 1, value), ret(what)]
    return [*block, ret(default)]


def install_seccomp(own_pid: int) -> None:
    program = seccomp_program(platform.machine(), own_pid)
    filters = b"".join(struct.pack("=HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(filters)
    prog = struct.pack("@HP", len(program), ctypes.addressof(buffer))  # struct sock_fprog, native layout
    prog_buffer = ctypes.create_string_buffer(prog)
    _check(_prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog_buffer), 0, 0), "seccomp")
