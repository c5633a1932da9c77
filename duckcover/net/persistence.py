"""The tables on disk: each table's record saved after every turn and its own file (seats,
rules, seed), a finished game handed to the host's finished games and statistics, and every
unfinished table brought back at the start, exactly where its last turn left it. A file that
cannot be read is set aside; a restored bot seat plays only a built-in difficulty.
"""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

from ..common.untrusted import LABEL_MAX, shown
from ..engine.errors import DuckError
from ..saves.record import dumps, read_rules, read_turn_seats, replay
from .records import record_of
from .sessions import LOCAL_NETWORK, Identity, Seat
from .table_host import DEFAULT_BOT, DIFFICULTIES, Table

META_MAX = 64 * 1024  # bytes of a table's own file (its record is read with the record's bound)
SET_ASIDE = "set-aside"  # where table files that cannot be read are moved, under serve/tables/


class Persistence:
    """The TableServer's files. (A part of TableServer, server.py: it reads the server's
    `tables_dir`, `data_dir` and `stats`, and reports through its `problem`.)"""

    def save(self, table: Table) -> None:
        from ..saves.storage import atomic_write

        if table.game is not None:
            try:
                atomic_write(self.tables_dir / f"{table.id}.json", dumps(record_of(table)))
            except OSError as err:  # the game goes on; the host is told
                self.problem(f"table {table.id}: cannot save: {err}")
        self.save_meta(table)

    def save_meta(self, table: Table) -> None:
        from ..saves.storage import atomic_write

        meta = {"id": table.id, "name": table.name, "seed": table.seed, "fixed": table.fixed,
                "rules": table.rules.to_json(), "rated": table.rated, "network": table.network,
                "seats": [{"kind": s.kind, "bot": s.bot, "name": s.name,
                           "owner": list(s.owner) if s.owner else None} for s in table.seats]}
        try:
            atomic_write(self.tables_dir / f"{table.id}.table.json", json.dumps(meta))
        except OSError as err:
            self.problem(f"table {table.id}: cannot save: {err}")

    def finished(self, table: Table) -> None:
        """A finished game joins the host's finished games and statistics; its table files go."""
        from ..saves import stats
        from ..saves.storage import save_finished

        self.metrics.game_finished()
        record = record_of(table)
        try:
            save_finished(record, self.data_dir)  # (the host's own unfinished local game stays)
            for path in (self.tables_dir / f"{table.id}.json", self.tables_dir / f"{table.id}.table.json"):
                path.unlink(missing_ok=True)
        except OSError as err:
            self.problem(f"table {table.id}: cannot save the finished game: {err}")
        if self.stats:
            try:
                if stats.add_game(record, self.data_dir / stats.DB_NAME, accounts=True):
                    self.rate(record, table)
            except Exception as err:  # noqa: BLE001 - statistics never end a game
                self.problem(f"table {table.id}: statistics: {err}")
        self.lobby_changed()

    def restore(self) -> None:
        """Bring back every unfinished table from its files, exactly where its last turn left it."""
        from ..common.files import why

        if not self.tables_dir.is_dir():
            return
        for meta_path in sorted(self.tables_dir.glob("*.table.json")):
            try:
                table = self.load_table(meta_path)
            except OSError as err:
                self.set_aside(meta_path, why(err))
                continue
            except (ValueError, KeyError, TypeError, IndexError, RecursionError, DuckError) as err:
                self.set_aside(meta_path, str(err))
                continue
            if table.state() != "over":
                self.tables[table.id] = table

    def set_aside(self, meta_path: Path, reason: str) -> None:
        """A table whose files cannot be read is moved out of the way (never read again, never
        lost), with one line for the host; the server starts without it."""
        table_id = meta_path.name.removesuffix(".table.json")
        aside = self.tables_dir / SET_ASIDE
        moved = []
        for path in (meta_path, self.tables_dir / f"{table_id}.json"):
            if path.is_symlink() or path.exists():
                try:
                    aside.mkdir(exist_ok=True)
                    path.rename(aside / path.name)
                    moved.append(path.name)
                except OSError:
                    pass
        where = f"; moved to serve/tables/{SET_ASIDE}/" if moved else ""
        self.problem(f"table {shown(table_id, 40)}: not restored: {shown(reason, 120)}{where}")

    def restored_bot(self, table_id: str, number: int, seat: dict) -> str | None:
        """A restored seat's bot: only a built-in difficulty, by name. The file is the server's
        own, but whoever can write it must not make the server import their code (a file path
        or `module:Class` would be imported here, outside every wall a bot process gets): any
        other spec is set aside with one line, and the default difficulty plays the seat, so
        the people at the table keep their game."""
        if seat["kind"] == "human":
            return None
        if seat["kind"] != "bot":
            raise ValueError("a seat is human or bot")
        spec = seat.get("bot")
        if isinstance(spec, str) and spec in DIFFICULTIES:
            return spec
        self.problem(f"table {shown(table_id, 40)}: seat {number}'s bot '{shown(spec, 60)}' is not a built-in "
                     f"difficulty, so it is not loaded; {DEFAULT_BOT} plays the seat")
        return DEFAULT_BOT

    def load_table(self, meta_path: Path) -> Table:
        from ..common.files import read_bounded
        from ..saves.record import read_file

        meta = json.loads(read_bounded(meta_path, META_MAX).decode("utf-8"))
        table_id = meta_path.name.removesuffix(".table.json")
        if meta["id"] != table_id or not re.fullmatch(r"[0-9a-f]{1,32}", table_id):
            raise ValueError("the table's id is not its file's name")
        seats = []
        for number, s in enumerate(meta["seats"], start=1):
            owner = Identity(*map(str_or_none, s["owner"][:2])) if s.get("owner") else None
            seats.append(Seat(s["kind"], bot=self.restored_bot(table_id, number, s), name=s.get("name"), owner=owner))
        rules = read_rules({"rules": meta["rules"]})
        network = meta.get("network", LOCAL_NETWORK)
        if not isinstance(network, str) or len(network) > 64:
            raise ValueError("the table's network is not a network")
        table = Table(table_id, shown(meta["name"], LABEL_MAX), seats, rules, int(meta["seed"]), self,
                      rated=meta.get("rated", True) is True, network=network)
        table.fixed = meta.get("fixed") is True
        record_path = self.tables_dir / f"{table.id}.json"
        if record_path.is_symlink() or record_path.exists():
            record = read_file(record_path)
            table.take_game(replay(record))
            table.turns.standins = [(seat, r, n) for (r, n), marked in read_turn_seats(record, "standins").items()
                              for seat in marked]
            table.make_referee()
            now = time.monotonic()
            for seat in seats:
                if seat.human:
                    seat.left_at = now  # everybody has to come back; the grace starts now
        return table


def str_or_none(value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValueError("a seat's owner is a name and a key")
    return value
