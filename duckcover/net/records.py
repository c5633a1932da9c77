"""A table's game record as the server keeps and shows it: who is rated (each owner's account,
each bot's version, whether the table is rated at all) and the marks its log tells (a bot's
fallback move, a late seat's time-out, a stand-in's turns). Saved, rated and, without what
nobody at the table may know, sent to every guest (table_host.Table.public_record).
"""
from __future__ import annotations

from ..saves.record import add_turn_seats, to_record
from .sessions import CODE_PREFIX, Identity

# "Table" below is table_host.Table, named but not imported: table_host imports this module.


def record_of(table: "Table") -> dict:
    """The table's game as a record, with who is rated and the marks its log tells."""
    from ..players.safety import Fallback, add_fallbacks

    record = rated_record(to_record(table.game, bots=[s.bot for s in table.seats]), table)
    found = [f for referee in table.referees for f in referee.fallbacks]
    found += [Fallback(seat, r, t, "time") for seat, r, t in table.turns.timeouts]
    return add_turn_seats(add_fallbacks(record, found), "standins", table.turns.standins)


def rated_account(owner: Identity) -> tuple[str, str | None]:
    """Who a seat's owner is to the ratings: the SSH user and key fingerprint, or the user alone.
    A return code is a keyless player's seat ticket, not an identity: it is new at every table,
    and it must never reach the record that every client is sent."""
    key = owner.key if owner.key is not None and not owner.key.startswith(CODE_PREFIX) else None
    return owner.user, key


def rated_record(record: dict, table: "Table") -> dict:
    """The record with who is rated: each owner's account, each bot's version, and
    `"rated": false` for a table that is not rated (the statistics then leave it out)."""
    from ..players.plugins import stamp_bot_versions

    stamp_bot_versions(record)
    for player, seat in zip(record["players"], table.seats):
        if seat.human and seat.owner is not None:
            player["account"] = list(rated_account(seat.owner))
    if not table.rated:
        record["rated"] = False
    return record
