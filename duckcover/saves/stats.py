"""History and statistics: finished games in a local SQLite database, per-player figures.

The database lives in `data_dir()/stats.db` (see paths.py). It is a cache built from game
records: every row keeps the record it came from, so it can always be inspected or rebuilt.
Outcomes are never taken from the record's word: `add_game` replays it through the engine.

Safety: a file that is not a readable duckcover database (garbage, a foreign schema, damaged
pages) or that a newer duckcover wrote (`PRAGMA user_version` above ours) is never written,
deleted or "repaired": every call raises `StatsError` with one line and leaves the file
byte-identical. `move_aside` (used by `duckcover stats --reset`) renames a corrupt file to
`stats.db.corrupt-<UTC time>` so a fresh database can start; it refuses a newer one, which is
not broken, only ahead of us.

Scores follow the rules: lower is better. A shared victory is a win for every winner; a
cooperative game counts as a win for the whole table, as the engine's outcome says.
"""
from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..common.files import private_folder
from ..common.i18n import stored_name
from ..engine.errors import DuckError
from .paths import data_dir
from .record import RecordError, read_file, read_rules, replay, to_record

SCHEMA_VERSION = 1
DB_NAME = "stats.db"

# StatsError.kind
CORRUPT = "corrupt"  # not a readable duckcover database
NEWER = "newer"  # written by a newer duckcover
RECORD = "record"  # the record given to add_game is invalid or unfinished
IO = "io"  # the file or its directory cannot be opened/created

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS games (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,      -- sha256 of the game's canonical record
        date TEXT NOT NULL,            -- when it was added, UTC ISO 8601
        players TEXT NOT NULL,         -- JSON list of names, by seat
        totals TEXT NOT NULL,          -- JSON list of game totals, by seat
        winners TEXT NOT NULL,         -- JSON list of winning seats
        variants TEXT NOT NULL,        -- JSON list of variant names
        decided_by TEXT NOT NULL,      -- score, fewest-cards, shared or team
        rounds INTEGER NOT NULL,
        record TEXT NOT NULL           -- the duckcover-record/1 JSON as given
    )""",
    """CREATE TABLE IF NOT EXISTS results (
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        name TEXT NOT NULL,
        total INTEGER NOT NULL,
        won INTEGER NOT NULL,
        best_round INTEGER NOT NULL,   -- lowest round score
        worst_round INTEGER NOT NULL,  -- highest round score
        single_stacks INTEGER NOT NULL,-- rounds this seat ended on exactly one stack
        rounds INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat)
    )""",
    "CREATE INDEX IF NOT EXISTS results_by_name ON results(name)",
)
# Added after schema 1 shipped, so they are created whenever a game is added (an older database
# gets them then; until then its games' keys are read from their records). An older duckcover
# ignores them.
RATING_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS rating_seats (
        game_id INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
        keys TEXT NOT NULL,            -- JSON list of rating keys, by seat (see ratings.py)
        rated INTEGER NOT NULL         -- 0: the game counts in the statistics but not the ratings
    )""",
)
EXPECTED_COLUMNS = {
    "games": {"id", "key", "date", "players", "totals", "winners", "variants", "decided_by", "rounds", "record"},
    "results": {"game_id", "seat", "name", "total", "won", "best_round", "worst_round", "single_stacks", "rounds"},
}


class StatsError(Exception):
    """One line saying what is wrong; `kind` is CORRUPT, NEWER, RECORD or IO."""

    def __init__(self, message: str, kind: str, path: Path | None = None):
        super().__init__(message)
        self.kind, self.path = kind, path


@dataclass(frozen=True)
class PlayerStats:
    name: str
    games: int
    wins: int
    average: float  # mean game total; lower is better
    best_round: int  # lowest round score
    worst_round: int  # highest round score
    single_stacks: int  # rounds ended with exactly one stack
    rounds: int  # rounds played
    key: str = ""  # who: the rating key (ratings.py), one row per key

    @property
    def kind(self) -> str:
        """"human", "account" or "bot", from the key."""
        from .ratings import kind_of

        return kind_of(self.key)

    @property
    def win_rate(self) -> float:
        """Wins per game, 0.0-1.0."""
        return self.wins / self.games if self.games else 0.0

    def as_dict(self) -> dict:
        return {**asdict(self), "win_rate": round(self.win_rate, 4), "average": round(self.average, 2)}


@dataclass(frozen=True)
class GameRow:
    id: int
    date: str  # UTC ISO 8601, when the game was added
    players: tuple[str, ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]  # seats
    variants: tuple[str, ...]
    decided_by: str  # "score", "fewest-cards", "shared" or "team"
    rounds: int
    key: str  # content hash of the game (duplicates are refused by it)

    @property
    def winner_names(self) -> tuple[str, ...]:
        return tuple(self.players[seat] for seat in self.winners)

    def as_dict(self) -> dict:
        return {**asdict(self), "winner_names": list(self.winner_names)}


def default_path() -> Path:
    return data_dir() / DB_NAME


# --- the public API -------------------------------------------------------------------------
def _no_os_errors(function):
    """A file-system refusal (permissions, a full disk) is a StatsError too: the app never crashes."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except OSError as err:
            where = f" {err.filename}" if err.filename else ""
            raise StatsError(f"statistics database{where}: {err.strerror or err}", IO) from None

    return wrapper


@_no_os_errors
def add_game(record: dict, db_path: str | Path | None = None, accounts: bool = False) -> bool:
    """Add a finished game; False if it is already there. StatsError if it cannot be added.

    `accounts`: the record's `account` stamps are believed (the server's own games only)."""
    game = _finished_game(record)
    key = game_key(game)
    try:
        # ASCII escapes: a lone surrogate in an untrusted record still makes valid UTF-8 in SQLite.
        record_text = json.dumps(record, separators=(",", ":"))
    except (TypeError, ValueError) as err:
        raise StatsError(f"record refused: not JSON-serialisable ({err})", RECORD) from None
    path = _path(db_path)
    _create_parent(path)
    fresh = _check(path) if path.exists() else True
    with _connect(path) as conn:
        try:
            conn.execute("BEGIN IMMEDIATE")
            if fresh:
                _create_schema(conn, path)
            for statement in RATING_SCHEMA:
                conn.execute(statement)
            inserted = _insert(conn, game, key, record_text, _rating_seats(record, game, accounts))
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as err:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise _db_error(path, err) from None
    return inserted


def reconcile(finished: list[Path], db_path: str | Path | None = None) -> int:
    """Add the finished games a kill kept out of the statistics (between archiving a game and
    adding it): every archived record newer than the database. How many were added."""
    path = _path(db_path)
    try:
        since = path.stat().st_mtime - 1.0  # margin: the two writes can share a second
    except OSError:
        since = float("-inf")  # no database yet: it is built from the archive
    added = 0
    for record_path in finished:
        try:
            if record_path.stat().st_mtime < since:
                continue
            record = read_file(record_path)
        except (OSError, RecordError):
            continue  # an unreadable archive is the Games screen's to show, not a statistic
        try:
            added += add_game(record, path)
        except StatsError as err:
            if err.kind != RECORD:
                raise
    return added


@_no_os_errors
def load(db_path: str | Path | None = None) -> list[PlayerStats]:
    """Per-player figures, most wins first, then the lowest average. [] when no database yet.

    One row per player as the ratings know them (their rating key: a person by name or SSH
    account, a bot by name and version), never by the name a seat had: two bots that sat as
    "Jackson" at different levels are two rows, and a person called like a bot is not the bot."""
    from .ratings import kind_of, label_of

    path = _path(db_path)
    rows = _read(path, "SELECT game_id, seat, name, total, won, best_round, worst_round, single_stacks, rounds"
                       " FROM results ORDER BY game_id, seat", _result_values)
    if not rows:
        return []
    keys = {game.id: game.keys for game in _rated_games(path)}
    grouped: dict[str, list[tuple]] = {}
    names: dict[str, str] = {}
    for row in rows:
        game_id, seat, name = row[:3]
        seat_keys_ = keys.get(game_id, ())
        if seat >= len(seat_keys_):
            raise _corrupt(path, f"unreadable row: game {game_id} has no seat {seat}")
        key = seat_keys_[seat]
        grouped.setdefault(key, []).append(row)
        if key not in names:
            names[key] = stored_name(name) if kind_of(key) == "human" else label_of(key)
    players = [_player_figures(key, names[key], group) for key, group in grouped.items()]
    return sorted(players, key=lambda p: (-p.wins, p.average, p.name.casefold(), p.name, p.key))


def _result_values(row: tuple) -> tuple:
    """A result row as read: whole numbers and the seat's name (a damaged value: TypeError)."""
    if type(row[2]) is not str or not all(type(value) is int for index, value in enumerate(row) if index != 2):
        raise TypeError(f"unexpected value in {row!r}"[:80])
    return row


def _player_figures(key: str, name: str, rows: list[tuple]) -> PlayerStats:
    """One player's figures from their seats' result rows (several seats of one game count as
    one game, as before: games and wins by game, the average by seat)."""
    return PlayerStats(
        name=name, games=len({row[0] for row in rows}), wins=len({row[0] for row in rows if row[4]}),
        average=sum(row[3] for row in rows) / len(rows), best_round=min(row[5] for row in rows),
        worst_round=max(row[6] for row in rows), single_stacks=sum(row[7] for row in rows),
        rounds=sum(row[8] for row in rows), key=key)


@_no_os_errors
def games(db_path: str | Path | None = None) -> list[GameRow]:
    """Every finished game, oldest first."""
    return _read(
        db_path,
        "SELECT id, date, players, totals, winners, variants, decided_by, rounds, key FROM games ORDER BY id",
        _game_row,
    )


@_no_os_errors
def ratings(db_path: str | Path | None = None, use_cache: bool = True) -> dict:
    """Every player's rating (ratings.Standing by rating key), computed from the finished games
    in the order they were added. {} when no database yet.

    The result is cached beside the database (`stats.db.ratings-cache`), valid only for the same
    games, seats and model (a fingerprint of all three); the cache is never the source: a
    missing, stale or damaged one is recomputed, and one that cannot be written is skipped."""
    from . import ratings as rating_model

    path = _path(db_path)
    if not path.exists() or _check(path):
        return {}
    fingerprint = _fingerprint(path, rating_model.MODEL_VERSION) if use_cache else ""
    cache = path.with_name(path.name + CACHE_SUFFIX)
    if use_cache:
        cached = _read_cache(cache, fingerprint)
        if cached is not None:
            return cached
    standings = rating_model.compute(game for game in _rated_games(path) if game.ranks)
    if use_cache:
        _write_cache(cache, fingerprint, standings)
    return standings


CACHE_SUFFIX = ".ratings-cache"


def _has_rating_table(db_path) -> bool:
    return bool(_read(db_path, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rating_seats'",
                      lambda row: row))


def _rated_games(path: Path) -> list:
    """Every game as ratings.RatedGame, oldest first; an unrated one has no ranks. A game added
    before the ratings existed has its seats' keys read from its record."""
    from .ratings import RatedGame, ranks, same_player, seat_keys

    # A game without its rating seats brings its record in the same query: the statistics read
    # keys for every game now (rows by player), and one query beats a connection per game.
    if _has_rating_table(path):
        query = ("SELECT g.id, g.players, g.totals, g.winners, r.keys, r.rated,"
                 " CASE WHEN r.keys IS NULL THEN g.record END FROM games g"
                 " LEFT JOIN rating_seats r ON r.game_id = g.id ORDER BY g.id")
    else:
        query = "SELECT id, players, totals, winners, NULL, NULL, record FROM games ORDER BY id"
    rows = _read(path, query, lambda row: row)
    found = []
    loads = json.loads
    try:
        for id_, players, totals, winners, keys, rated, record_text in rows:
            names, totals_, winners_ = loads(players), loads(totals), loads(winners)
            if keys is None:
                entry = _json(record_text, dict)
                given = entry.get("players") if isinstance(entry.get("players"), list) else []
                keys_, rated = seat_keys(given, names), entry.get("rated") is not False
            else:
                keys_ = loads(keys)
                if _all_of(keys_, str):
                    keys_ = [same_player(key) for key in keys_]
            if not (type(id_) is int and _all_of(names, str) and _all_of(keys_, str) and _all_of(totals_, int)
                    and _all_of(winners_, int) and len(keys_) == len(names) == len(totals_)):
                raise ValueError("seats, keys and totals do not match")
            ranks_ = ranks(totals_, winners_) if rated else ()
            found.append(RatedGame(id_, tuple(keys_), ranks_, tuple(names)))
    except (ValueError, TypeError, AttributeError) as err:  # JSONDecodeError is a ValueError
        raise _corrupt(path, f"unreadable row: {err}") from None
    return found


def _all_of(values, kind) -> bool:
    return type(values) is list and all(type(v) is kind for v in values)


def _fingerprint(path: Path, model_version: str) -> str:
    """What the ratings are computed from, hashed: every game's id, content key, totals, winners,
    rating keys and rated flag, in order, and the model. SQLite joins the text (no row is parsed
    here, so a cache hit costs one query)."""
    seats = ("COALESCE(r.keys, '-') || ':' || COALESCE(r.rated, '-')" if _has_rating_table(path) else "'-'")
    query = (f"SELECT group_concat(line, '|') FROM (SELECT g.id || ':' || g.key || ':' || g.totals || ':' ||"
             f" g.winners || ':' || {seats} AS line FROM games g"
             + (" LEFT JOIN rating_seats r ON r.game_id = g.id" if seats != "'-'" else "") + " ORDER BY g.id)")
    text = _read(path, query, lambda row: row[0])
    digest = hashlib.sha256(model_version.encode())
    digest.update((text[0] if text and isinstance(text[0], str) else "").encode("utf-8", "replace"))
    return digest.hexdigest()


def _read_cache(cache: Path, fingerprint: str) -> dict | None:
    from .ratings import Rating, Standing

    try:
        if not cache.is_file() or cache.stat().st_size > CACHE_MAX:
            return None
        data = json.loads(cache.read_text(encoding="utf-8"))
        if data.get("fingerprint") != fingerprint:
            return None
        standings = {}
        for key, (mu, sigma, history, ids) in data["standings"].items():
            standings[_typed(key, str)] = Standing(
                key, Rating(float(mu), float(sigma)), [float(v) for v in history], [int(v) for v in ids])
        return standings
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None  # a damaged cache is only recomputed


CACHE_MAX = 64 * 1024 * 1024


def _write_cache(cache: Path, fingerprint: str, standings: dict) -> None:
    from ..common.files import atomic_write

    data = {"fingerprint": fingerprint,
            "standings": {key: [s.rating.mu, s.rating.sigma, s.history, s.game_ids] for key, s in standings.items()}}
    try:
        atomic_write(cache, json.dumps(data, separators=(",", ":")))
    except OSError:
        pass  # a cache that cannot be written is recomputed next time


@_no_os_errors
def record(game_id: int, db_path: str | Path | None = None) -> dict:
    """The record a game was added from (to inspect, replay or rebuild the database)."""
    rows = _read(db_path, "SELECT record FROM games WHERE id = ?", lambda row: _json(row[0], dict), (game_id,))
    if not rows:
        raise StatsError(f"no game {game_id} in the statistics database", RECORD)
    return rows[0]


@_no_os_errors
def check(db_path: str | Path | None = None) -> None:
    """Raise StatsError if the database exists but cannot be used. Never writes."""
    path = _path(db_path)
    if path.exists():
        _check(path)


@_no_os_errors
def move_aside(db_path: str | Path | None = None) -> Path | None:
    """Rename a corrupt database to `<name>.corrupt-<UTC time>`; the new path, or None if it is fine.

    A newer database is refused (StatsError NEWER): it is not damaged, a newer duckcover reads it.
    """
    path = _path(db_path)
    if not path.exists():
        return None
    try:
        _check(path)
        if not _rows_damaged(path):
            return None
    except StatsError as err:
        if err.kind != CORRUPT:
            raise
    return _move(path)


def _rows_damaged(path: Path) -> bool:
    """Whether a database SQLite finds sound holds rows duckcover cannot read (what `load` and
    `games` call corrupt, so `--reset` must agree)."""
    try:
        load(path)
        games(path)
    except StatsError as err:
        if err.kind == CORRUPT:
            return True
        raise
    return False


def _move(path: Path) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    try:
        path.rename(target)
        journal = path.with_name(path.name + "-journal")
        if journal.exists():  # a journal belongs to its database; left behind it could touch the new one
            journal.rename(target.with_name(target.name + "-journal"))
    except OSError as err:
        raise StatsError(f"cannot move {path} aside: {err.strerror or err}", IO, path) from None
    return target


def game_key(game) -> str:
    """sha256 of the game's canonical record: what happened, not how the file was written.

    Replaying normalises the rules, and realised decks, the seed, bot labels and any extra
    top-level keys (timestamps an app may add) are left out, so re-saving or pretty-printing
    a record never makes it count twice, while any different turn does.
    """
    canon = to_record(game)
    canon.pop("seed", None)
    canon["rules"].pop("splashes", None)  # a game is its moves and layouts, whatever the table says
    canon["players"] = [player["name"] for player in canon["players"]]
    for entry in canon["rounds"]:
        entry.pop("deck", None)
        entry.pop("reshuffles", None)
    text = json.dumps(canon, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- records ---------------------------------------------------------------------------------
def _finished_game(record: dict):
    """The record's game, replayed with the published splash table: a record cannot invent
    its own scores. A game whose play depended on another table (Max by splashes) is refused."""
    if not isinstance(record, dict):
        raise StatsError("record refused: a record is a JSON object", RECORD)
    rules = record.get("rules")
    try:
        read_rules(record)  # the table as given must be sane, though it is not the one used
    except RecordError as err:
        raise StatsError(f"record refused: {err}", RECORD) from None
    if isinstance(rules, dict) and "splashes" in rules:
        from ..engine.cards import default_splashes

        record = {**record, "rules": {**rules, "splashes": list(default_splashes())}}
    try:
        game = replay(record)
    except DuckError as err:
        raise StatsError(f"record refused: {err}", RECORD) from None
    except (TypeError, ValueError, KeyError, AttributeError) as err:  # a shape replay did not foresee
        raise StatsError(f"record refused: {type(err).__name__}: {err}", RECORD) from None
    if not game.over:
        done = len(game.results)
        raise StatsError(
            f"record refused: the game is not finished ({done} of {game.rules.rounds()} rounds played)", RECORD
        )
    return game


def _insert(conn: sqlite3.Connection, game, key: str, record_text: str, rating_seats: tuple[str, int]) -> bool:
    outcome = game.outcome()
    date = datetime.now(timezone.utc).isoformat(timespec="seconds")
    variants = sorted(game.rules.variants)
    cursor = conn.execute(
        "INSERT OR IGNORE INTO games (key, date, players, totals, winners, variants, decided_by, rounds, record)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            key,
            date,
            json.dumps([stored_name(name) for name in game.names], ensure_ascii=False),
            json.dumps(list(outcome.totals)),
            json.dumps(list(outcome.winners)),
            json.dumps(variants),
            outcome.decided_by,
            len(game.results),
            record_text,
        ),
    )
    if cursor.rowcount == 0:
        return False  # the same game was added before
    game_id = cursor.lastrowid
    conn.executemany(
        "INSERT INTO results (game_id, seat, name, total, won, best_round, worst_round, single_stacks, rounds)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [_result_row(game_id, game, outcome, seat) for seat in range(game.n)],
    )
    conn.execute("INSERT INTO rating_seats (game_id, keys, rated) VALUES (?, ?, ?)", (game_id, *rating_seats))
    return True


def _rating_seats(record: dict, game, accounts: bool) -> tuple[str, int]:
    """The seats' rating keys (JSON) and whether the game is rated: a record may only opt out
    (`"rated": false`, what a friendly or seeded server table writes)."""
    from .ratings import seat_keys

    players = record.get("players") if isinstance(record.get("players"), list) else []
    keys = seat_keys(players, list(game.names), accounts_trusted=accounts)
    return json.dumps(keys), int(record.get("rated") is not False)


def _result_row(game_id: int, game, outcome, seat: int) -> tuple:
    scores = [result.scores[seat] for result in game.results]
    singles = sum(seat in result.single_stack for result in game.results)
    return (
        game_id, seat, stored_name(game.names[seat]), outcome.totals[seat], int(seat in outcome.winners),
        min(scores), max(scores), singles, len(scores),
    )


# --- rows back into dataclasses (a damaged value raises ValueError/TypeError: corrupt) ----------
def _game_row(row: tuple) -> GameRow:
    id_, date, players, totals, winners, variants, decided_by, rounds, key = row
    players_, totals_, winners_, variants_ = (_json(v, list) for v in (players, totals, winners, variants))
    if len(totals_) != len(players_) or not all(type(s) is int and 0 <= s < len(players_) for s in winners_):
        raise ValueError("players, totals and winners do not match")
    return GameRow(
        _typed(id_, int), _typed(date, str), tuple(_typed(n, str) for n in players_),
        tuple(_typed(v, int) for v in totals_), tuple(winners_), tuple(_typed(v, str) for v in variants_),
        _typed(decided_by, str), _typed(rounds, int), _typed(key, str),
    )


def _typed(value, kind):
    if not isinstance(value, kind) or isinstance(value, bool):
        raise TypeError(f"unexpected value {value!r}"[:80])
    return value


def _json(text, kind):
    value = json.loads(_typed(text, str))  # JSONDecodeError is a ValueError
    return _typed(value, kind)


# --- the database file -----------------------------------------------------------------------
def _path(db_path: str | Path | None) -> Path:
    return Path(db_path).expanduser() if db_path is not None else default_path()


def _create_parent(path: Path) -> None:
    try:
        private_folder(path.parent)
    except OSError as err:
        raise StatsError(f"cannot create {path.parent}: {err.strerror or err}", IO, path) from None


def _corrupt(path: Path, detail: str) -> StatsError:
    return StatsError(
        f"statistics database {path} is corrupt or not a duckcover database ({_printable(detail)}); "
        "it was left untouched ('duckcover stats --reset' moves it aside)",
        CORRUPT,
        path,
    )


def _printable(detail: str, limit: int = 120) -> str:
    # SQLite quotes damaged bytes back in its messages; keep the report one readable line.
    text = "".join(ch if ch.isprintable() else "?" for ch in detail)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _db_error(path: Path, err: Exception) -> StatsError:
    message = str(err)
    if isinstance(err, (UnicodeDecodeError, ValueError, TypeError)) or "decode" in message:
        return _corrupt(path, message)  # damaged text in a row or in the schema itself
    if isinstance(err, sqlite3.OperationalError):
        if "locked" in message or "busy" in message:
            return StatsError(f"statistics database {path} is busy (another duckcover is writing it)", IO, path)
        return StatsError(f"statistics database {path} cannot be used: {_printable(message)}", IO, path)
    return _corrupt(path, message)


def _connect(path: Path, read_only: bool = False) -> "_Closing":
    """A connection in autocommit mode (transactions are explicit). Read-only never writes."""
    try:
        if read_only:
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5, isolation_level=None)
        else:
            conn = sqlite3.connect(path, timeout=5, isolation_level=None)
    except sqlite3.Error as err:
        raise StatsError(f"statistics database {path} cannot be opened: {err}", IO, path) from None
    return _Closing(conn)


class _Closing:
    """`with` closes the connection (sqlite3's own context manager only ends transactions)."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        return self.conn

    def __exit__(self, *exc) -> None:
        self.conn.close()


def _check(path: Path) -> bool:
    """StatsError unless `path` is a usable database; True when it is empty (schema to create)."""
    if path.is_dir():
        raise StatsError(f"statistics database {path} is a directory", IO, path)
    # After a crash mid-write SQLite rolls the journal back on the next read-write open; a
    # read-only open cannot, so let that case through to the writer instead of calling it corrupt.
    read_only = not path.with_name(path.name + "-journal").exists()
    with _connect(path, read_only) as conn:
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StatsError(
                    f"statistics database {path} was written by a newer duckcover (schema {version}; "
                    f"this version reads {SCHEMA_VERSION}); it was left untouched",
                    NEWER,
                    path,
                )
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if version < 0 or (version == 0 and tables):
                raise _corrupt(path, f"unknown schema version {version}" if version else "tables of another program")
            if version == 0:
                return True
            for table, columns in EXPECTED_COLUMNS.items():
                have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
                if not columns <= have:
                    raise _corrupt(path, f"table {table!r} is missing or incomplete")
            status = conn.execute("PRAGMA quick_check").fetchone()[0]
            if status != "ok":
                raise _corrupt(path, f"integrity check: {status}")
        except (sqlite3.Error, UnicodeDecodeError) as err:
            raise _db_error(path, err) from None
    return False


def _create_schema(conn: sqlite3.Connection, path: Path) -> None:
    # Inside the caller's transaction: two processes creating at once cannot both do it.
    if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
        return
    for statement in SCHEMA:
        conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _read(db_path: str | Path | None, query: str, convert, params: tuple = ()) -> list:
    path = _path(db_path)
    if not path.exists() or _check(path):
        return []  # no database yet, or an empty one
    with _connect(path, read_only=True) as conn:
        try:
            rows = conn.execute(query, params).fetchall()
        except (sqlite3.Error, UnicodeDecodeError) as err:
            raise _db_error(path, err) from None
    try:
        return [convert(row) for row in rows]
    except (ValueError, TypeError) as err:  # a damaged value that SQLite itself read fine
        raise _corrupt(path, f"unreadable row: {err}") from None
