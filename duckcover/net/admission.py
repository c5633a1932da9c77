"""How far a guest is let in, by where the guest comes from (issue 28, item 6).

Two bounds that names alone cannot give, since anyone may log in under any name:
- unfinished tables are counted per source *network* (an IPv4 /24, an IPv6 /64) as well as
  per name, so one stranger with many login names cannot fill every table slot;
- wrong return codes (a keyless player's `name+CODE`) are counted per source *address*, and
  every coded login from an address that sent a wrong one waits its turn, the wait doubling
  with each wrong code (capped), so guessing a code costs time, not only logins.

Bookkeeping only: no I/O and no sleeping here (the SSH front waits, off the event loop's
critical path), and the clock is a parameter, so the waits are tested without waiting.
"""
from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

TABLES_PER_NETWORK = 8  # unfinished tables opened from one network (64 on the server: 8 networks to fill it)
GUESS_FIRST_WAIT = 1.0  # seconds the login after a first wrong code waits; it doubles with each more
GUESS_MAX_WAIT = 60.0  # ... up to this: an honest player who mistyped twice is not locked out for long
GUESS_FORGET_AFTER = 3600.0  # seconds after its last wrong code an address starts afresh
GUESS_SOURCES_MAX = 4096  # addresses remembered at once (the oldest go first): bounded memory


def network_of(peer: str | None) -> str:
    """The network a per-network bound counts under: an IPv4 /24 or an IPv6 /64 (an IPv4 address
    mapped into IPv6 is its IPv4 /24). Anything that is not an address (a test's Unix socket) is
    its own network."""
    try:
        address = ipaddress.ip_address(peer or "")
    except ValueError:
        return str(peer)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    prefix = 24 if isinstance(address, ipaddress.IPv4Address) else 64
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))


@dataclass
class _Book:
    wrong: int = 0  # wrong codes from this address
    free_at: float = 0.0  # clock time the last coded login queued from here is checked
    last: float = 0.0  # clock time of its last wrong code


class CodeGuesses:
    """Wrong return codes per source address, and how long a coded login from there waits."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.books: OrderedDict[str, _Book] = OrderedDict()

    def wait(self, wrong: int) -> float:
        """The wait after `wrong` wrong codes: 0, then 1 s, 2 s, 4 s ... up to GUESS_MAX_WAIT."""
        if wrong <= 0:
            return 0.0
        return min(GUESS_MAX_WAIT, GUESS_FIRST_WAIT * 2 ** min(wrong - 1, 30))

    def book(self, source: str) -> _Book | None:
        book = self.books.get(source)
        if book is not None and self.clock() - book.last >= GUESS_FORGET_AFTER:
            del self.books[source]
            return None
        return book

    def admit(self, source: str, book: bool = True) -> float:
        """Seconds a coded login from `source` waits before its code is checked: 0 from an
        address without wrong codes, else the wait its count of wrong codes costs, counted from
        when the login before it from there is checked: logins sent side by side queue, so
        parallel guesses are no faster than serial ones. `book=False`: only how long it would
        wait, its place in the queue not taken."""
        entry = self.book(source)
        if entry is None or entry.wrong == 0:
            return 0.0
        now = self.clock()
        free_at = max(now, entry.free_at) + self.wait(entry.wrong)
        if book:
            entry.free_at = free_at
        return free_at - now

    def wrong(self, source: str) -> int:
        """A wrong code from `source`: how many it has sent (the next coded login waits longer)."""
        now = self.clock()
        book = self.book(source)
        if book is None:
            book = self.books[source] = _Book()
            while len(self.books) > GUESS_SOURCES_MAX:
                self.books.popitem(last=False)
        self.books.move_to_end(source)
        book.wrong += 1
        book.last = now
        return book.wrong
