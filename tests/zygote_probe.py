"""A stand-in for the table client, forked by the warm parent in tests/test_serve_warm_parent.py:
it says, on its terminal, what a forked client starts with, and ends with status 7."""
from __future__ import annotations

import json
import os
import random
import signal
import sys
import threading


def open_fds() -> list[int]:
    listed = os.listdir("/proc/self/fd")  # (its own descriptor, closed by now, is listed too)
    return sorted(int(fd) for fd in listed if os.path.exists(f"/proc/self/fd/{fd}"))


def main() -> int:
    print(json.dumps({
        "random": random.getrandbits(64),
        "pid": os.getpid(), "sid": os.getsid(0),
        "fds": open_fds(),
        "tty": sys.stdin.isatty() and sys.stdout.isatty(),
        "env": dict(os.environ),
        "threads": threading.active_count(),
        "sigterm_default": signal.getsignal(signal.SIGTERM) == signal.SIG_DFL,
        "name": open("/proc/self/comm").read().strip(),
    }), flush=True)
    return 7
