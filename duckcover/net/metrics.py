"""What is happening on the server, for the host's tools: Prometheus metrics (`serve --metrics`).

  duckcover_guests{door}                    guests connected now, by door (ssh, web)
  duckcover_tables{state}                   tables now: open (waiting for players), playing,
                                            idle (a game nobody is at), over (still looked at)
  duckcover_draining                        1 while the server drains (duckcover admin drain)
  duckcover_games_finished_total            games played to their end since the start
  duckcover_reveal_seconds                  from the last choice of a turn to its reveal sent to
                                            everyone at the table (a histogram)
  duckcover_logins_refused_total{reason}    logins turned away, by why (full, banned, draining...)
  duckcover_bot_fallbacks_total             moves the referee chose for a bot that failed
                                            (too slow, crashed, illegal move)

The counts of now (guests, tables) are read at each scrape from the server's own state; the
rest are counted where they happen, each at one call (`refused`, `game_finished`, `reveal`).
Each server has a registry of its own (tests run several in one process).

The page is served on the event loop by a small HTTP/1.0 responder: GET or HEAD of /metrics,
requests bounded (8 KiB, 5 s), 16 connections at once. It only reads; bind it to loopback or a
monitoring network (docs/serve.md).
"""
from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily

from .sessions import DOORS

TABLE_STATES = ("open", "playing", "idle", "over")
REFUSALS = ("full", "banned", "draining", "flood", "per-address", "no-pty", "command", "invisible-name",
            "name-in-play", "code-queue", "cannot-start")
REVEAL_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
REQUEST_MAX = 8 * 1024  # bytes of a request's line and headers
REQUEST_TIMEOUT = 5.0  # seconds to send them
CONNECTIONS_MAX = 16  # scrapes served at once; more are closed at once


class _Now:
    """The gauges read from the server's state when scraped (on the event loop: no lock needed)."""

    def __init__(self, server: Any) -> None:
        self.server = server

    def collect(self):
        guests = GaugeMetricFamily("duckcover_guests", "Guests connected now, by door", labels=["door"])
        doors = dict.fromkeys(DOORS, 0)
        for visit in list(self.server.visits.values()):
            doors[visit.door] = doors.get(visit.door, 0) + 1
        for door, count in doors.items():
            guests.add_metric([door], count)
        tables = GaugeMetricFamily("duckcover_tables", "Tables now, by state", labels=["state"])
        states = dict.fromkeys(TABLE_STATES, 0)
        for table in list(self.server.tables.values()):
            state = table.activity()
            states[state] = states.get(state, 0) + 1
        for state, count in states.items():
            tables.add_metric([state], count)
        draining = GaugeMetricFamily("duckcover_draining", "1 while the server drains: no new tables or logins")
        draining.add_metric([], 1 if getattr(self.server, "draining", False) else 0)
        return [guests, tables, draining]


class Metrics:
    """One server's metrics. `server` has `.visits` (token -> Visit), `.tables` (id -> Table)
    and `.draining`."""

    def __init__(self, server: Any) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(_Now(server))
        self.games_finished = Counter("duckcover_games_finished", "Games played to their end", registry=self.registry)
        self.reveal_seconds = Histogram("duckcover_reveal_seconds",
                                        "Seconds from a turn's last choice to its reveal sent to the table",
                                        buckets=REVEAL_BUCKETS, registry=self.registry)
        self.logins_refused = Counter("duckcover_logins_refused", "Logins turned away, by reason", ["reason"],
                                      registry=self.registry)
        for reason in REFUSALS:
            self.logins_refused.labels(reason)  # every reason listed from the start, at 0
        self.bot_fallbacks = Counter("duckcover_bot_fallbacks", "Moves the referee chose for a bot that failed",
                                     registry=self.registry)
        self.fallbacks_seen: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # table -> fallbacks counted

    # --- the one call at each place it happens ----------------------------------------------
    def refused(self, reason: str) -> None:
        self.logins_refused.labels(reason).inc()

    def game_finished(self) -> None:
        self.games_finished.inc()

    @contextmanager
    def reveal(self, table: Any) -> Iterator[None]:
        """Around a turn's resolution (its choices are all in): its time to the reveal sent, and
        the bot fallbacks the turn brought."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.revealed(table, time.perf_counter() - start)

    def revealed(self, table: Any, seconds: float) -> None:
        """A turn's reveal sent `seconds` after its last choice came in."""
        self.reveal_seconds.observe(seconds)
        self.count_fallbacks(table)

    def count_fallbacks(self, table: Any) -> None:
        total = sum(len(referee.fallbacks) for referee in getattr(table, "referees", ()))
        new = total - self.fallbacks_seen.get(table, 0)
        if new > 0:
            self.bot_fallbacks.inc(new)
        self.fallbacks_seen[table] = total

    def page(self) -> bytes:
        return generate_latest(self.registry)


# --- the page over HTTP ------------------------------------------------------------------------
async def serve(metrics: Metrics, host: str, port: int) -> asyncio.base_events.Server:
    """Serve /metrics on host:port; the listening server (its .sockets hold the real port)."""
    busy = [0]

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if busy[0] >= CONNECTIONS_MAX:
            writer.close()
            return
        busy[0] += 1
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), REQUEST_TIMEOUT)
            method, path = _request_line(head)
            if method not in ("GET", "HEAD"):
                writer.write(_response(405, b"only GET and HEAD\n"))
            elif path.split("?", 1)[0] != "/metrics":
                writer.write(_response(404, b"the metrics are at /metrics\n"))
            else:
                writer.write(_response(200, metrics.page(), CONTENT_TYPE, body=method == "GET"))
            await writer.drain()
        except (asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        finally:
            busy[0] -= 1
            writer.close()

    return await asyncio.start_server(answer, host, port, limit=REQUEST_MAX)


def _request_line(head: bytes) -> tuple[str, str]:
    words = head.split(b"\r\n", 1)[0].decode("latin-1").split()
    return (words[0], words[1]) if len(words) == 3 else ("", "")


def _response(status: int, content: bytes, content_type: str = "text/plain; charset=utf-8",
              body: bool = True) -> bytes:
    reason = {200: "OK", 404: "Not Found", 405: "Method Not Allowed"}[status]
    head = (f"HTTP/1.0 {status} {reason}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(content)}\r\nConnection: close\r\n\r\n").encode("ascii")
    return head + (content if body else b"")
