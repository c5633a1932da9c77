"""How far a guest is let in, by where the guest comes from (issue 28, item 6), and who may
not come in at all (the host's bans, issue 31). Every door (SSH, web) asks here.

Two bounds that names alone cannot give, since anyone may log in under any name:
- unfinished tables are counted per source *network* (an IPv4 /24, an IPv6 /64) as well as
  per name, so one stranger with many login names cannot fill every table slot;
- wrong return codes (a keyless player's `name+CODE`) are counted per source *address*, and
  every coded login from an address that sent a wrong one waits its turn, the wait doubling
  with each wrong code (capped), so guessing a code costs time, not only logins.

The bans are the host's (`duckcover admin ban`): an address, a network or a login name, for
good or for a while, kept in `serve/bans.json` so a restart forgets none.

No sleeping here (the SSH front waits, off the event loop's critical path), and the clocks are
parameters, so the waits and the bans' ends are tested without waiting. The only I/O is the
bans' own small file.
"""
from __future__ import annotations

import functools
import ipaddress
import json
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from ..common.files import atomic_write, read_bounded, why
from ..common.untrusted import shown

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


# --- the host's bans -------------------------------------------------------------------------
BANS_FILE = "bans.json"  # under <data dir>/serve/
BANS_MAX = 10_000  # bans kept at once: the file stays small, a check stays quick
BANS_FILE_MAX = 4 * 1024 * 1024  # bytes read of it
BAN_NAME_MAX = 64  # characters of a login name to ban (SSH names can be longer than shown ones)


@dataclass(frozen=True)
class Ban:
    """One ban: `target` as the host wrote it, made plain (an address, a network such as
    203.0.113.0/24, or a login name), `kind` "address", "network" or "name", `until` the wall-clock
    time it ends (None: until unbanned), `since` when it was made."""

    target: str
    kind: str
    until: float | None = None
    since: float = 0.0

    def live(self, now: float) -> bool:
        return self.until is None or now < self.until


def _plain_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address):
    """An IPv4 address mapped into IPv6 is that IPv4 address (a dual-stack listener sees those)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


@functools.lru_cache(maxsize=BANS_MAX)
def _network(target: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    return ipaddress.ip_network(target)  # parsed once: every connection is checked against each


def name_key(name: str) -> str:
    """What a name ban matches: the name in NFKC case-folded form, so `Ben`, `BEN` and a
    full-width `Ｂｅｎ` are one name to a ban."""
    return unicodedata.normalize("NFKC", name).casefold()


def ban_target(text: str) -> tuple[str, str]:
    """(kind, plain target) of what the host wrote: an IPv4 or IPv6 address, a network
    (`203.0.113.0/24`, host bits allowed), else a login name. ValueError, one line, for text
    that is neither."""
    text = text.strip()
    try:
        network = ipaddress.ip_network(text, strict=False)
    except ValueError:
        network = None
    if network is not None:
        if network.num_addresses == 1:
            return "address", str(_plain_address(network.network_address))
        if isinstance(network, ipaddress.IPv6Network) and network.network_address.ipv4_mapped is not None \
                and network.prefixlen >= 96:
            network = ipaddress.ip_network(f"{network.network_address.ipv4_mapped}/{network.prefixlen - 96}")
        return "network", str(network)
    if not text or not text.isprintable() or len(text) > BAN_NAME_MAX:
        raise ValueError(f"a ban names an address, a network or a login name of 1-{BAN_NAME_MAX} "
                         f"printable characters, not {shown(text, 40)!r}")
    return "name", text


class Bans:
    """The host's bans, kept in a file (`path`; None: in memory only). Expired bans are
    forgotten as they are met. `clock` is wall-clock time: a ban's end outlives a restart."""

    def __init__(self, path: Path | None, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.clock = clock
        self.bans: dict[tuple[str, str], Ban] = {}  # (kind, key) -> ban; the key of a name is name_key

    @staticmethod
    def key(kind: str, target: str) -> tuple[str, str]:
        return kind, name_key(target) if kind == "name" else target

    def load(self) -> "Bans":
        """Read the file (a missing one is no ban). ValueError with one line if it cannot be
        read: a server that forgot its bans without a word would let them all back in."""
        if self.path is None:
            return self
        try:
            data = json.loads(read_bounded(self.path, BANS_FILE_MAX).decode("utf-8"))
        except FileNotFoundError:
            return self
        except OSError as err:
            raise ValueError(f"cannot read the bans in {shown(self.path)}: {why(err)}") from None
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise ValueError(f"cannot read the bans in {shown(self.path)}: not a bans file") from None
        try:
            for entry in data["bans"][:BANS_MAX]:
                kind, target = ban_target(entry["target"])
                until = entry.get("until")
                if kind != entry["kind"] or not (until is None or isinstance(until, (int, float))):
                    raise ValueError
                ban = Ban(target, kind, None if until is None else float(until), float(entry.get("since", 0.0)))
                self.bans[self.key(kind, target)] = ban
        except (KeyError, TypeError, ValueError, AttributeError):
            raise ValueError(f"cannot read the bans in {shown(self.path)}: not a bans file") from None
        self.forget_expired()
        return self

    def save(self) -> None:
        """Write the bans (atomically, flushed to disk: a ban is the host's word). OSError."""
        if self.path is not None:
            bans = [asdict(ban) for ban in self.bans.values()]
            atomic_write(self.path, json.dumps({"v": 1, "bans": bans}, indent=1), durable=True)

    def forget_expired(self) -> None:
        now = self.clock()
        for key in [key for key, ban in self.bans.items() if not ban.live(now)]:
            del self.bans[key]

    def add(self, text: str, seconds: float | None = None) -> Ban:
        """Ban `text` (see ban_target) for `seconds`, or until unbanned; saved. A target
        banned already gets the new end. ValueError (one line) or OSError."""
        kind, target = ban_target(text)
        self.forget_expired()
        key = self.key(kind, target)
        if key not in self.bans and len(self.bans) >= BANS_MAX:
            raise ValueError(f"{BANS_MAX} bans are kept at most; lift some first (duckcover admin unban)")
        now = self.clock()
        ban = Ban(target, kind, None if seconds is None else now + seconds, now)
        previous = self.bans.get(key)
        self.bans[key] = ban
        try:
            self.save()
        except OSError:
            if previous is None:
                del self.bans[key]
            else:
                self.bans[key] = previous
            raise
        return ban

    def remove(self, text: str) -> Ban | None:
        """Lift the ban on `text`; the ban lifted, or None if there was none. Saved (OSError)."""
        kind, target = ban_target(text)
        ban = self.bans.pop(self.key(kind, target), None)
        if ban is not None:
            try:
                self.save()
            except OSError:
                self.bans[self.key(kind, target)] = ban
                raise
        return ban

    def listing(self) -> list[Ban]:
        self.forget_expired()
        return sorted(self.bans.values(), key=lambda ban: ban.since)

    def refusal(self, peer: str | None, name: str | None = None) -> Ban | None:
        """The live ban that keeps a login from `peer` (an address) as `name` out, or None."""
        if not self.bans:
            return None
        now = self.clock()
        found: list[Ban] = []
        if name is not None:
            ban = self.bans.get(("name", name_key(name)))
            if ban is not None:
                found.append(ban)
        try:
            address = _plain_address(ipaddress.ip_address(peer or ""))
        except ValueError:
            address = None
        if address is not None:
            ban = self.bans.get(("address", str(address)))
            if ban is not None:
                found.append(ban)
            found += [ban for (kind, _), ban in self.bans.items()
                      if kind == "network" and address in _network(ban.target)]
        return next((ban for ban in found if ban.live(now)), None)


# --- what every door asks before a session starts --------------------------------------------
BANNED_LINE = "duckcover: this server does not take logins from you (the host's ban)."
DRAINING_LINE = ("duckcover: the server restarts once the games now running have ended; "
                 "please come back in a few minutes.")


def refused_login(bans: Bans, draining: bool, peer: str | None, name: str, returning: bool) -> tuple[str, str] | None:
    """(reason, one line for the guest) if a login from `peer` as `name` is turned away at a
    door, else None: a ban on its address, network or name; or a server draining, unless the
    login is `returning` to its seat at a game that is still being played (running games finish,
    and their players may come back to them)."""
    if bans.refusal(peer, name) is not None:
        return "banned", BANNED_LINE
    if draining and not returning:
        return "draining", DRAINING_LINE
    return None
