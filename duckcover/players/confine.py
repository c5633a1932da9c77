"""The kernel's walls around a bot process, and what holds on this system.

A bot you did not write runs in a process of its own (duckcover.players.sandbox). On Linux that
process, before it imports the bot, puts itself behind:
  - every capability dropped (bounding, ambient, effective, permitted, inheritable): CI runs
    as root, and root's CAP_SYS_PTRACE would read a non-dumpable game's memory anyway;
  - `no_new_privs`, so no later exec gives any back;
  - Landlock: read (and execute) only the interpreter, the libraries, the directories on its
    sys.path and its own code; nothing of the data directory, no /proc, no /dev/tty, no
    writes anywhere; no TCP connect or bind (ABI >= 4); signals and abstract unix sockets
    scoped to itself (ABI >= 6);
  - a seccomp filter: no ptrace, process_vm_readv/writev, kcmp, pidfd_getfd; no fork, vfork
    or clone without CLONE_THREAD (threads stay; clone3 answers ENOSYS so libc falls back to
    clone, where the flags can be read); no socket() (unix sockets by path are outside
    Landlock's reach), no io_uring (its operations pass by seccomp); signals only to itself;
    no unshare/setns. Each of those kills the process (SIGSYS): the Referee names the bot.
The game process makes itself non-dumpable (`protect_game_process`) before any bot starts,
so no process of the same user reads its memory, descriptors or environment through /proc.

A small ctypes layer, not a PyPI binding: the only maintained Landlock binding (`landlock`,
a pre-release) does no seccomp and the seccomp bindings need libseccomp installed; these are
four syscalls and a BPF program of twenty-odd instructions, in the standard library.

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
# seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low half on a little-endian machine)
DATA_NR, DATA_ARCH, DATA_ARG0 = 0, 4, 16

SYSCALLS = {
    "x86_64": dict(arch=0xC000003E, ptrace=101, process_vm_readv=310, process_vm_writev=311, kcmp=312,
                   pidfd_getfd=438, process_madvise=440, fork=57, vfork=58, clone=56, clone3=435,
                   kill=62, tkill=200, tgkill=234, pidfd_send_signal=424, socket=41, unshare=272, setns=308,
                   io_uring_setup=425, io_uring_enter=426, io_uring_register=427,
                   rt_sigqueueinfo=129, rt_tgsigqueueinfo=297),
    "aarch64": dict(arch=0xC00000B7, ptrace=117, process_vm_readv=270, process_vm_writev=271, kcmp=272,
                    pidfd_getfd=438, process_madvise=440, fork=None, vfork=None, clone=220, clone3=435,
                    kill=129, tkill=130, tgkill=131, pidfd_send_signal=424, socket=198, unshare=97, setns=268,
                    io_uring_setup=425, io_uring_enter=426, io_uring_register=427,
                    rt_sigqueueinfo=138, rt_tgsigqueueinfo=240),
}
DENIED = ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise",
          "fork", "vfork", "tkill", "pidfd_send_signal", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "socket",
          "unshare", "setns", "io_uring_setup", "io_uring_enter", "io_uring_register")


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
            ("network", abi >= 4 or seccomp),
            ("signals", abi >= 6 or seccomp),
            ("processes", seccomp),
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
def readable_paths(sys_path: list[str], bot_code: list[str], private: list[str]) -> list[str]:
    """The paths a bot process may read: the interpreter, the libraries, its sys.path and its own
    code, less any directory that holds a private one (the data directory, the home directory):
    a bot file in the home directory gets that file, not the home directory (nor does a game
    started there get its working directory granted). Absolute, existing."""
    secrets = [Path(p).resolve() for p in private if p]
    candidates = [os.path.realpath(sys.executable), *LIBRARY_DIRS, *LIBRARY_FILES, *sys_path, *bot_code]
    kept: list[str] = []
    for entry in candidates:
        path = Path(entry or os.getcwd()).resolve()  # "" on sys.path: the working directory
        if not path.exists() or any(path == s or path in s.parents for s in secrets):
            continue
        if str(path) not in kept:
            kept.append(str(path))
    return kept


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


def seccomp_program(machine: str, own_pid: int) -> list[tuple[int, int, int, int]]:
    """The filter as BPF instructions (code, jt, jf, k) for `machine`. A forbidden call kills the
    process (SIGSYS), so the Referee names the offender; signals may go to `own_pid` only."""
    nr = SYSCALLS[machine]
    kill = (BPF_RET, 0, 0, RET_KILL_PROCESS)
    program = [(BPF_LD_W_ABS, 0, 0, DATA_ARCH), (BPF_JEQ, 1, 0, nr["arch"]), kill, (BPF_LD_W_ABS, 0, 0, DATA_NR)]
    if machine == "x86_64":  # the x32 ABI's numbers would pass every check below
        program += [(BPF_JGE, 0, 1, X32_SYSCALL_BIT), kill]
    for name in DENIED:
        if nr[name] is not None:
            program += [(BPF_JEQ, 0, 1, nr[name]), kill]
    # clone3: its flags are behind a pointer a filter cannot read; ENOSYS makes libc use clone
    program += [(BPF_JEQ, 0, 1, nr["clone3"]), (BPF_RET, 0, 0, RET_ERRNO | errno.ENOSYS)]
    # clone: only with CLONE_THREAD (a thread of this process, never a new one)
    program += [(BPF_JEQ, 0, 4, nr["clone"]), (BPF_LD_W_ABS, 0, 0, DATA_ARG0), (BPF_JSET, 1, 0, CLONE_THREAD),
                kill, (BPF_RET, 0, 0, RET_ALLOW)]
    # kill and tgkill: to this process only (not the game, not a process group, not -1)
    for name in ("kill", "tgkill"):
        program += [(BPF_JEQ, 0, 4, nr[name]), (BPF_LD_W_ABS, 0, 0, DATA_ARG0), (BPF_JEQ, 1, 0, own_pid),
                    kill, (BPF_RET, 0, 0, RET_ALLOW)]
    program.append((BPF_RET, 0, 0, RET_ALLOW))
    return program


def install_seccomp(own_pid: int) -> None:
    program = seccomp_program(platform.machine(), own_pid)
    filters = b"".join(struct.pack("=HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(filters)
    prog = struct.pack("@HP", len(program), ctypes.addressof(buffer))  # struct sock_fprog, native layout
    prog_buffer = ctypes.create_string_buffer(prog)
    _check(_prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog_buffer), 0, 0), "seccomp")
