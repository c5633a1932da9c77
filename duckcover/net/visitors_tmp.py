"""Who is connected, through which door: what the operator's console lists and the metrics count.

Every door (SSH, web) starts a guest's client with a token from the table server
(`issue_token`); the server keeps a Guest for that token until the door revokes it at the end
of the session. So whatever door a session came through, the host sees it, and can end it.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

DOORS = ("ssh", "web")


@dataclass(eq=False)
class Guest:
    """One session at a door: who logged in (`user`, the login name), from which address, since
    when (wall-clock), and how to end it (`end`: the door closes the connection)."""

    user: str
    door: str = "ssh"
    address: str | None = None
    since: float = field(default_factory=time.time)
    end: Callable[[str], None] | None = None  # called with one line for the guest's terminal
    client: Any = None  # the table server's Client, once the session's client has greeted

    def matches(self, name: str) -> bool:
        from .admission import name_key

        return name_key(self.user) == name_key(name)
