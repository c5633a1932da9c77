"""`duckcover serve --metrics`: Prometheus text about what happens, scraped while games run.

An in-process table server with its metrics page on 127.0.0.1 (a free port); its guests speak
the protocol (tests/serve_helpers.py). The page is read over HTTP, as Prometheus reads it.
"""
from __future__ import annotations

import asyncio

import pytest

from duckcover.net import metrics
from duckcover.net.server import TableServer
from duckcover.net.sessions import Identity

from serve_helpers import ProtocolClient, play_until


@pytest.fixture
async def served(tmp_path):
    server = TableServer(tmp_path, grace=0.3, pace=0)
    server.sock = tmp_path / "tables.sock"
    await server.start(server.sock)
    page = await metrics.serve(server.metrics, "127.0.0.1", 0)
    server.metrics_port = page.sockets[0].getsockname()[1]
    yield server
    page.close()
    await server.close()


async def get(port: int, request: bytes = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n") -> tuple[str, str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    answer = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = answer.decode().partition("\r\n\r\n")
    return head, body


async def scrape(server) -> dict[str, float]:
    head, body = await get(server.metrics_port)
    assert head.startswith("HTTP/1.0 200") and "text/plain; version=0.0.4" in head
    return {name: float(value) for name, value in
            (row.rsplit(" ", 1) for row in body.splitlines() if row and not row.startswith("#"))}


async def guest(server, name: str, door: str) -> ProtocolClient:
    client = await ProtocolClient.connect(server.sock, server.issue_token(Identity(name), "127.0.0.1", door=door))
    await client.until("welcome")
    return client


async def test_guests_tables_and_the_reveal_histogram_move_while_a_game_is_played(served):
    before = await scrape(served)
    assert before['duckcover_guests{door="ssh"}'] == before['duckcover_guests{door="web"}'] == 0
    assert before["duckcover_reveal_seconds_count"] == 0 and before["duckcover_games_finished_total"] == 0
    ann, ben = await guest(served, "ann", "ssh"), await guest(served, "ben", "web")
    ann.send("create", seats=["human", "human", "easy"], seed=4)
    await ann.until("seated")
    assert (await scrape(served))['duckcover_tables{state="open"}'] == 1
    ben.send("join", table=next(iter(served.tables)))
    await ben.until("seated")
    await play_until([ann, ben], lambda: len(ann.reveals) >= 3, timeout=60)
    during = await scrape(served)
    assert during['duckcover_guests{door="ssh"}'] == 1 and during['duckcover_guests{door="web"}'] == 1
    assert during['duckcover_tables{state="playing"}'] == 1 and during['duckcover_tables{state="open"}'] == 0
    assert during["duckcover_reveal_seconds_count"] >= 3
    assert during['duckcover_reveal_seconds_bucket{le="+Inf"}'] == during["duckcover_reveal_seconds_count"]
    assert during["duckcover_reveal_seconds_sum"] > 0
    await play_until([ann, ben], lambda: ann.game.over, timeout=120)
    after = await scrape(served)
    assert after["duckcover_games_finished_total"] == 1
    assert after["duckcover_reveal_seconds_count"] > during["duckcover_reveal_seconds_count"]
    await ben.close()
    served.revoke_token(next(token for token, g in served.visits.items() if g.user == "ben"))  # as his door does
    assert (await scrape(served))['duckcover_guests{door="web"}'] == 0
    await ann.close()


async def test_refusals_and_bot_fallbacks_are_counted(served):
    served.metrics.refused("banned")
    served.metrics.refused("full")
    served.metrics.refused("banned")

    class Referee:
        fallbacks = [object(), object()]

    class Table:
        referees = [Referee()]

    table = Table()
    with served.metrics.reveal(table):
        pass
    with served.metrics.reveal(table):  # the same two fallbacks: counted once
        pass
    page = await scrape(served)
    assert page['duckcover_logins_refused_total{reason="banned"}'] == 2
    assert page['duckcover_logins_refused_total{reason="full"}'] == 1
    assert page['duckcover_logins_refused_total{reason="draining"}'] == 0  # every reason listed
    assert page["duckcover_bot_fallbacks_total"] == 2 and page["duckcover_reveal_seconds_count"] == 2


async def test_the_page_answers_get_of_metrics_only_and_bounds_what_it_reads(served):
    port = served.metrics_port
    assert (await get(port, b"GET / HTTP/1.1\r\n\r\n"))[0].startswith("HTTP/1.0 404")
    assert (await get(port, b"POST /metrics HTTP/1.1\r\n\r\n"))[0].startswith("HTTP/1.0 405")
    head, body = await get(port, b"HEAD /metrics HTTP/1.0\r\n\r\n")
    assert head.startswith("HTTP/1.0 200") and body == ""
    assert await get(port, b"GET /metrics HTTP/1.1\r\n" + b"X: " + b"y" * 20_000 + b"\r\n\r\n") == ("", "")
    # An idle connection is closed after the request's time-out; the page goes on answering.
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    assert await asyncio.wait_for(reader.read(), metrics.REQUEST_TIMEOUT + 5) == b""
    writer.close()
    assert (await get(port))[0].startswith("HTTP/1.0 200")
