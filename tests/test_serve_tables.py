"""The table server at the protocol level: whole games, privacy, hostile clients, reconnects,
restarts. Clients here speak the protocol directly (tests/serve_helpers.py); the SSH front and
the Textual client have their own tests."""
from __future__ import annotations

import asyncio
import json

import pytest

from duckcover.engine import flip_name
from duckcover.net import protocol as p
from duckcover.net.server import TableServer
from duckcover.net.sessions import login_identity
from duckcover.saves import stats, storage
from duckcover.saves.record import replay

from serve_helpers import carried, join, play_until


@pytest.fixture
async def server(tmp_path):
    srv = TableServer(tmp_path, grace=0.3, pace=0)
    sock = tmp_path / "tables.sock"
    await srv.start(sock)
    srv.sock = sock
    yield srv
    await srv.close()


async def seated_table(server, names, seats, seed=7):
    """Humans `names` at a table of `seats` (the first creates it); returns clients and table."""
    clients = [await join(server, name) for name in names]
    clients[0].send("create", seats=seats, seed=seed, name="test")
    await clients[0].until("seated")
    table = next(iter(server.tables.values()))
    for client in clients[1:]:
        client.send("join", table=table.id)
        await client.until("seated")
    return clients, table


# --- the protocol --------------------------------------------------------------------------
def test_messages_are_versioned_bounded_json_lines():
    line = p.encode("flip")
    assert line.endswith(b"\n") and json.loads(line) == {"v": p.VERSION, "type": "flip"}
    assert p.decode(line, p.CLIENT_TYPES, p.CLIENT_LINE_MAX)["type"] == "flip"
    for bad in (b"x" * (p.CLIENT_LINE_MAX + 1), b"not json\n", b"[1]\n", b'{"v": 99, "type": "flip"}\n',
                b'{"v": 1, "type": "reveal"}\n', b"\xff\xfe\n"):
        with pytest.raises(p.ProtocolError):
            p.decode(bad, p.CLIENT_TYPES, p.CLIENT_LINE_MAX)


def test_a_move_from_a_peer_is_checked_for_shape():
    assert p.move_from_json(None, 0, 4) is None
    move = p.move_from_json({"card": 5, "to": [1, 2]}, 2, 4)
    assert (move.card.family, move.card.number, move.to) == (2, 5, (1, 2))
    for bad in ({"card": 13}, {"card": "5"}, {"card": 5, "family": 9}, {"card": 5, "to": [1]}, [], "x",
                {"card": 5, "to": [10**9, 0]}):
        with pytest.raises(p.ProtocolError):
            p.move_from_json(bad, 0, 4)


# --- a whole game --------------------------------------------------------------------------
async def test_three_humans_and_a_bot_play_a_whole_game_and_see_what_the_record_says(server, tmp_path):
    clients, table = await seated_table(server, ["ann", "ben", "cy"], ["human", "human", "human", "medium"])
    assert [c.seat for c in clients] == [0, 1, 2]
    await play_until(clients, lambda: table.game.over, timeout=60)
    for client in clients:  # the last reveal may still be on its way
        while client.game.phase.value != "game-over":
            await client.next()
    finished = storage.finished_paths(tmp_path)
    assert len(finished) == 1
    record = json.loads(finished[0].read_text())
    truth = replay(record)
    for client in clients:
        assert client.game.totals == truth.totals  # everybody's final scores are the record's
        assert client.game.outcome() == truth.outcome()
        assert client.reveals == clients[0].reveals  # the same reveals, in the same order
    played = [[p.move_to_json(m) for m in turn.moves] for log in truth.rounds for turn in log.turns
              if turn.call.kind != "dead" and any(turn.moves)]
    assert [r for r in clients[0].reveals if any(r)] == played
    assert [player.get("bot") for player in record["players"]] == [None, None, None, "medium"]
    assert list(stats.games(tmp_path / stats.DB_NAME)[0].players) == ["ann", "ben", "cy", "Jackson"]


# --- privacy and hostile clients ---------------------------------------------------------------
async def test_a_hostile_client_cannot_act_for_another_seat_nor_learn_a_pending_move(server):
    (ann, eve), table = await seated_table(server, ["ann", "eve"], ["human", "human"], seed=3)
    game = table.game
    assert game.captain == 0
    eve.send("flip")  # only the Captain flips
    assert "Captain" in (await eve.until("error"))["text"]
    ann.send("flip")
    await eve.until("flip")
    await ann.until("flip")
    # Ann chooses; Eve, not yet chosen, tries everything to learn it or to choose for Ann.
    ann_move = game.view(0).legal_moves()[0]
    ann.send("choose", move=p.move_to_json(ann_move))
    status = await eve.until("status")
    while not status["chosen"]:
        status = await eve.until("status")
    assert status["chosen"] == [0] and status["thinking"] == [1]  # names only, never the move
    eve.send("sync")
    snapshot = await eve.until("seated")
    eve.send("choose", seat=0, move=p.move_to_json(game.view(0).legal_moves()[-1]))  # a field it may not use
    error = await eve.until("error")  # its own seat, and Ann's card is not Eve's to move
    assert error["text"]
    eve.send("watch", table=table.id)
    await eve.until("error")
    assert table.chosen[0] == ann_move and 1 not in table.chosen
    assert "pending" not in json.dumps(snapshot).replace("pending_flips", "")
    assert not carried(eve.raw, '"moves"')  # no reveal yet, and nothing else carries moves
    # Eve chooses: only now is Ann's move revealed to her.
    eve.choose_first_legal()
    reveal = await eve.until("reveal")
    assert reveal["moves"][0] == p.move_to_json(ann_move)


async def test_a_wrong_token_or_a_broken_line_ends_that_connection_only(server):
    reader, writer = await asyncio.open_unix_connection(str(server.sock))
    writer.write(p.encode("hello", token="guess"))
    line = await reader.readline()
    assert json.loads(line)["type"] == "error" and await reader.readline() == b""
    writer.close()
    reader, writer = await asyncio.open_unix_connection(str(server.sock))
    writer.write(b"\x00\xff garbage" * 1000 + b"\n")
    assert await asyncio.wait_for(reader.read(), 5) == b""  # closed, no traceback
    writer.close()
    client = await join(server, "\x1b]0;pwned\x07[bold]ann\x1b[2J")
    client.send("create", seats=["human", "easy"])
    seated = await client.until("seated")
    name = seated["record"]["players"][0]["name"] if seated.get("record") else table_name(server)
    assert "\x1b" not in name and "\x07" not in name
    assert "\x1b" not in json.dumps(p.to_json(server.lobby()))


def table_name(server) -> str:
    return next(iter(server.tables.values())).seats[0].name


# --- coming and going ----------------------------------------------------------------------
async def test_a_dropped_player_keeps_the_seat_a_bot_stands_in_and_she_comes_back(server):
    (ann, ben), table = await seated_table(server, ["ann", "ben"], ["human", "human", "medium"], seed=11)
    code = (await ann.until("note"))["login"]
    ann.send("flip")
    await ben.until("flip")
    await ann.close()
    note = await ben.until("note")
    assert (note["key"], note["name"]) == ("left", "ann")
    # Ben plays on; after the grace period the stand-in bot chooses for Ann's seat.
    await play_until([ben], lambda: table.game.turn_number >= 3, timeout=20)
    assert table.standin(0)
    assert code.startswith("ann+")  # ann has no key: she was shown the code that brings her back
    back = await join(server, *login_identity(code, None))
    seated = await back.until("seated")  # straight back to her seat, with the whole table
    assert seated["seat"] == 0 and back.game.turn_number == table.game.turn_number
    assert back.game.totals == table.game.totals
    assert (await ben.until("note"))["key"] == "back"


async def test_someone_else_with_the_same_user_name_but_another_key_is_not_her(server):
    (ann, _ben), table = await seated_table(server, ["ann", "ben"], ["human", "human"])
    await ann.close()
    other = await join(server, "ann", key="SHA256:other")
    message = await other.until("lobby")
    assert message["tables"][0]["id"] == table.id and other.seat is None


async def test_a_server_restarted_from_its_files_resumes_every_table_mid_round(tmp_path):
    first = TableServer(tmp_path, grace=30, pace=0)
    await first.start(tmp_path / "a.sock")
    first.sock = tmp_path / "a.sock"
    (ann, ben), table = await seated_table(first, ["ann", "ben"], ["human", "human", "easy"], seed=5)
    cy = await join(first, "cy")
    cy.send("create", seats=["human", "hard"], seed=9)
    await cy.until("seated")
    await play_until([ann, ben, cy], lambda: table.game.turn_number >= 4, timeout=30)
    saved = {t.id: (t.game.round_index, t.game.turn_number, t.game.totals,
                    [dict(t.game.grid(s)) for s in range(t.game.n)]) for t in first.tables.values()}
    # No orderly shutdown: the files as they stand after the last turn are all there is.
    for client in (ann, ben, cy):
        client.writer.transport.abort()
    first.server.close()
    for t in first.tables.values():
        t.cancel_timer()
    second = TableServer(tmp_path, grace=30, pace=0)
    second.restore()
    assert set(second.tables) == set(saved)
    for tid, (round_index, turns, totals, grids) in saved.items():
        game = second.tables[tid].game
        assert (game.round_index, game.turn_number, game.totals) == (round_index, turns, totals)
        assert [dict(game.grid(s)) for s in range(game.n)] == grids
        assert second.tables[tid].seats[0].owner.user in ("ann", "cy")


async def two_and_a_bot(server, variants):
    """Ann and Ben at a table with an easy bot, under `variants`, the game started."""
    ann, ben = await join(server, "ann"), await join(server, "ben")
    ann.send("create", seats=["human", "human", "easy"], seed=21, variants=variants)
    await ann.until("seated")
    table = next(iter(server.tables.values()))
    ben.send("join", table=table.id)
    await ben.until("seated")
    while ann.game is None:
        await ann.until("seated")
    return (ann, ben), table


@pytest.mark.parametrize("variants", [["low-blows"], ["two-flips"], ["surprises", "madness"], ["constraints"]])
async def test_every_variant_plays_to_the_end_and_every_mirror_agrees(server, variants):
    (ann, ben), table = await two_and_a_bot(server, variants)
    await play_until([ann, ben], lambda: table.game.over, timeout=60)
    for client in (ann, ben):
        while not client.game.over:
            await client.next()
        assert client.game.totals == table.game.totals
        assert client.game.rules.variants == frozenset(variants)


def keys_in(value) -> set[str]:
    if isinstance(value, dict):
        return set(value).union(*(keys_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_in(v) for v in value))
    return set()


def round_entries(message: dict) -> list[dict]:
    if message["type"] == "round":
        return [message["round"]]
    return message.get("record", {}).get("rounds", []) if message["type"] == "seated" else []


async def test_surprises_no_client_learns_the_removed_cards_and_every_mirror_keeps_step(server, tmp_path):
    """RULES: the two cards Surprises removes are unseen. Nothing a client receives names them
    (the rounds it is told of list the whole card set), yet its mirror follows the game through
    every reshuffle (two flips a turn: the deck runs out) and a reconnect, to the final scores."""
    variants = ["surprises", "two-flips"]
    (ann, ben), table = await two_and_a_bot(server, variants)
    await play_until([ann, ben], lambda: table.game.round.reshuffles, timeout=60)
    await ben.close()  # back mid-round, after a reshuffle: the whole table again, from the public record
    ben2 = await join(server, *table.seats[1].owner)  # ben, with the code he was shown
    assert (await ben2.until("seated"))["seat"] == 1
    await play_until([ann, ben2], lambda: table.game.over, timeout=60)
    truth = replay(json.loads(storage.finished_paths(tmp_path)[0].read_text()))
    assert all(len(log.removed) == 2 for log in truth.rounds)
    assert sum(len(log.reshuffles) for log in truth.rounds) >= 3
    whole_set = sorted(flip_name(c) for c in truth.rules.deck())
    for client in (ann, ben, ben2):
        for message in client.inbox:  # every message, not only the ones the mirror used
            assert not {"removed", "reshuffles"} & keys_in(message), message["type"]
            assert message.get("record", {}).get("seed", 0) == 0
            for entry in round_entries(message):
                assert sorted(entry["deck"]) == whole_set  # the same for any two cards removed
    for client in (ann, ben2):
        while not client.game.over:
            await client.next()
        assert client.game.totals == truth.totals and client.game.outcome() == truth.outcome()
        assert [len(log.reshuffles) for log in client.game.rounds] == [len(log.reshuffles) for log in truth.rounds]
        assert [[t.flips for t in log.turns] for log in client.game.rounds] == \
            [[t.flips for t in log.turns] for log in truth.rounds]


async def test_a_table_everyone_left_waits_and_an_unstarted_one_goes(server):
    (ann, ben), table = await seated_table(server, ["ann", "ben"], ["human", "human", "easy"], seed=13)
    await ann.close()
    await ben.close()
    await asyncio.sleep(0.6)  # twice the grace period: still nobody plays for them
    assert table.game.turn_number == 0 and not table.standin(0) and table.timer is None
    back = await join(server, *table.seats[1].owner)  # ben, with the code he was shown
    assert (await back.until("seated"))["seat"] == 1
    lonely = await join(server, "cy")
    lonely.send("create", seats=["human", "human"])
    await lonely.until("seated")
    assert len(server.tables) == 2
    lonely.send("leave")
    await lonely.until("left")
    assert len(server.tables) == 1
