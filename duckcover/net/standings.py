"""The server's ratings: each finished rated game moves the standings, which every guest sees
(the ten best, each difficulty's rating, an ordinal beside each name). The numbers come from
duckcover.saves.ratings, derived from the statistics.
"""
from __future__ import annotations

from ..common.untrusted import NAME_MAX, shown
from ..players import difficulty
from . import protocol as p
from .records import rated_account
from .sessions import Seat


class Standings:
    """The TableServer's ratings. (A part of TableServer, server.py: it reads the server's
    `standings`, `stats`, `data_dir` and `clients`.)"""

    def refresh_ratings(self) -> None:
        from ..saves import stats

        if not self.stats:
            return
        try:
            self.standings = stats.ratings(self.data_dir / stats.DB_NAME)
        except Exception as err:  # noqa: BLE001 - ratings never stop the server
            self.problem(f"ratings: {err}")

    def rate(self, record: dict, table: "Table") -> None:  # table_host.Table
        """The game just added to the statistics, rated on top of the standings: the last game
        in the database's order, so the same numbers as recomputing them all, without the wait."""
        from ..saves.ratings import RatedGame, model, rate_game, ranks, seat_keys

        if record.get("rated") is False:
            return
        outcome = table.game.outcome()
        keys = seat_keys(record["players"], table.game.names, accounts_trusted=True)
        rate_game(model(), self.standings, RatedGame(-1, tuple(keys), ranks(outcome.totals, outcome.winners)))
        table.send_status()  # the new ordinals beside the names
        for client in self.clients:
            client.send(p.Top(players=self.top_ten(), levels=self.level_ratings()))

    def top_ten(self) -> tuple[p.TopPlayer, ...]:
        """The server's ten best rated people (bots are rated too, but not listed here)."""
        from ..saves.ratings import leaderboard

        return tuple(p.TopPlayer(name=shown(s.label, NAME_MAX), ordinal=round(s.rating.ordinal, 2), games=s.games)
                     for s in leaderboard(self.standings, kinds=("account", "human"))[:10])

    def level_ratings(self) -> tuple[p.LevelRating, ...]:
        """Each difficulty's rating on this server: its bot's published rating moved by the games
        played here (the number a guest's lobby and new-table screen show beside the level)."""
        from ..players.plugins import bot_identity
        from ..saves.ratings import bot_rating

        return tuple(p.LevelRating(level=level, ordinal=round(bot_rating(*bot_identity(bot), self.standings).ordinal, 2))
                     for level, bot in difficulty.DIFFICULTIES.items())

    def ordinal(self, seat: Seat) -> float | None:
        """A seat's rating on this server, as the conservative ordinal (a measured bot not yet
        rated here: its published one, as everywhere); None when unrated."""
        from ..saves.ratings import current_rating

        key = seat_rating_key(seat)
        rating = current_rating(key, self.standings or {}) if key else None
        return None if rating is None else round(rating.ordinal, 2)


def seat_rating_key(seat: Seat) -> str | None:
    """Who a seat is to the ratings: the SSH account of its owner, or its bot and version."""
    from ..players.plugins import bot_identity
    from ..saves.ratings import account_key, bot_key

    if seat.human:
        return account_key(*rated_account(seat.owner)) if seat.owner else None
    return bot_key(*bot_identity(seat.bot)) if seat.bot else None
