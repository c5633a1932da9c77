"""The server's log for its host: one line per event on stderr, readable text or JSON.

`duckcover serve` writes readable lines by default ("duckcover: ..."), and with
`--log-format json` one JSON object per line, for journald or a log shipper:
  {"time": "2026-12-03T17:04:05.123Z", "event": "kick", "table": null, "guest": "ben",
   "address": "203.0.113.7", "message": "..."}
Every field a guest could have chosen (a name, a table's name, anything in the message) is
shown escaped and bounded, in both forms: the log is read by people and parsed by tools.
The guests' client processes write their one line to the same descriptor (app/remote.py), in
the same form (DUCKCOVER_LOG_FORMAT).
"""
from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timezone
from typing import TextIO

from ..common.untrusted import LABEL_MAX, NAME_MAX, shown

FORMATS = ("text", "json")
ENV_VAR = "DUCKCOVER_LOG_FORMAT"  # how the guests' clients write their lines to the server's log
MESSAGE_MAX = 300  # characters of one message


def line(fmt: str, event: str, message: str, *, table: str | None = None, guest: str | None = None,
         address: str | None = None) -> str:
    """One log line (without its newline) in `fmt`."""
    text = shown(message, MESSAGE_MAX)
    if fmt != "json":
        return f"duckcover: {text}"
    return json.dumps({
        "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "event": shown(event, 40),
        "table": None if table is None else shown(table, LABEL_MAX),
        "guest": None if guest is None else shown(guest, NAME_MAX * 4),
        "address": None if address is None else shown(address, 64),
        "message": text,
    }, ensure_ascii=False)


class HostLog:
    """Where the server's lines go (stderr unless told) and in which form."""

    def __init__(self, fmt: str = "text", stream: TextIO | None = None) -> None:
        self.fmt = fmt if fmt in FORMATS else "text"
        self.stream = stream

    def say(self, event: str, message: str, *, table: str | None = None, guest: str | None = None,
            address: str | None = None) -> None:
        stream = self.stream or sys.stderr
        print(line(self.fmt, event, message, table=table, guest=guest, address=address), file=stream, flush=True)

    def fd_line(self, fd: int, event: str, message: str, **fields) -> None:
        """The same line written straight to a descriptor (a client's, lent by the server)."""
        try:
            os.write(fd, (line(self.fmt, event, message, **fields) + "\n").encode("utf-8", "replace"))
        except OSError:
            pass
