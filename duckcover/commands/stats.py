"""`duckcover stats [--json] [--games] [--lang L] [--db PATH] [--add FILE...] [--reset]`: the history of finished games."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from ..app.words import player_title, rating_change, rating_number
from ..common.i18n import LANGUAGES, detect, local_number, set_language, shown_name, t
from ..common.untrusted import shown
from ..saves.record import RecordError, read_file
from ..saves.stats import StatsError, add_game, default_path, games, load, move_aside, ratings

BAR_WIDTH = 30
NAME_COLUMN = 18  # kept whole up to this ("Difficile (expert)"): wider, the 80-column table cuts a heading


def add_parser(sub) -> None:
    parser = sub.add_parser("stats", help="per-player statistics of the finished games")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--lang", choices=LANGUAGES, help="language of the tables and messages (default: from the locale)")
    parser.add_argument("--games", action="store_true", help="list the finished games instead")
    parser.add_argument("--db", metavar="PATH", help="the statistics database (default: stats.db in the data directory)")
    parser.add_argument("--add", metavar="FILE", nargs="+", help="add finished game records (duckcover-record/1 JSON)")
    parser.add_argument(
        "--reset", action="store_true", help="move a corrupt database aside (stats.db.corrupt-<time>) to start afresh"
    )
    parser.set_defaults(command="stats")


def run(args) -> int:
    set_language(args.lang or detect())
    db = Path(args.db).expanduser() if args.db else default_path()
    if args.db and not (args.add or args.reset or db.is_file()):  # a typo must not read as "no games yet"
        print(f"duckcover stats: {t('stats.no_db_file', path=db)}", file=sys.stderr)
        return 2
    try:
        if args.reset:
            return _reset(db)
        if args.add:
            return _add(args.add, db)
        if args.games:
            return _print_games(db, args.json)
        return _print_players(db, args.json)
    except StatsError as err:
        print(shown(f"duckcover stats: {err}", 500), file=sys.stderr)
        return 2


def _reset(db: Path) -> int:
    target = move_aside(db)
    if target is None:
        key = "stats.reset_healthy" if db.exists() else "stats.reset_missing"
        print(t(key, path=db))
    else:
        print(t("stats.reset_done", path=target))
    return 0


def _add(files: list[str], db: Path) -> int:
    for name in files:
        try:
            added = add_game(read_file(name), db)
        except (RecordError, StatsError) as err:
            print(shown(f"{name}: {err}", 500), file=sys.stderr)
            return 2
        print(shown(t("stats.added" if added else "stats.already_added", file=name)))
    return 0


def _print_players(db: Path, as_json: bool) -> int:
    from ..saves.ratings import leaderboard

    players = load(db)
    standings = ratings(db) if players else {}
    if as_json:
        count = len(games(db)) if players else 0
        entries = [_with_rating(p, standings) for p in players]
        board = [_named(s.as_dict(), s.key) for s in leaderboard(standings)]
        sys.stdout.write(json.dumps({"games": count, "players": entries, "ratings": board,
                                     "rating_explained": t("rating.explained")}, indent=1) + "\n")
        return 0
    if not players:
        print(t("stats.empty"))
        return 0
    from rich.console import Console

    console = Console()
    console.print(players_table(players, console.width))
    console.print(wins_chart(players))
    if standings:
        console.print(ratings_table(leaderboard(standings)))
        console.print(t("rating.explained"))
    console.print(t("stats.footer", games=len(games(db))))
    return 0


def _print_games(db: Path, as_json: bool) -> int:
    rows = games(db)
    if as_json:
        # ASCII escapes: a name's control characters or bad bytes cannot reach a terminal raw.
        sys.stdout.write(json.dumps([row.as_dict() for row in rows], indent=1) + "\n")
        return 0
    if not rows:
        print(t("stats.empty"))
        return 0
    from rich.console import Console

    Console().print(games_table(rows))
    return 0


# --- Rich renderables (plain text when NO_COLOR or not a terminal; Rich decides) -----------------
def players_table(players, width: int | None = None):
    """The figures by player, `width` columns wide at most (None: as wide as they come)."""
    from rich.table import Table

    table = Table(title=t("stats.title"), title_justify="left")
    names = [player_title(p.key, p.name) for p in players]
    rows = [(str(p.games), str(p.wins), f"{p.win_rate * 100:.0f}%", local_number(p.average, 1),
             f"{p.best_round:+d}", f"{p.worst_round:+d}", str(p.single_stacks)) for p in players]
    headings = [t(key) for key in ("stats.games", "stats.wins", "stats.win_rate", "stats.average",
                                   "stats.best_round", "stats.worst_round", "stats.single_stacks")]
    name_width = min(NAME_COLUMN, max(map(len, names), default=0))
    natural = sum(max([len(h)] + [len(row[i]) for row in rows]) + 3 for i, h in enumerate(headings)) + name_width + 4
    if width is not None and natural > width:
        # A bot's one name whole ("Medium (greedy)"): the headings take a word a line instead
        # (Rich, left to itself, cuts a one-word heading such as "Average" before it wraps one).
        # A "%" stays with its word ("Win %", "% victoires").
        headings = [re.sub(r" (?!%)(?<!% )", "\n", heading) for heading in headings]
    table.add_column(t("stats.player"), no_wrap=True, min_width=name_width)
    for heading in headings:
        table.add_column(heading, justify="right")
    for name, row in zip(names, rows):
        table.add_row(as_text(name), *row)
    return table


def _with_rating(player, standings: dict) -> dict:
    """A player's figures with their rating: the number every screen shows for them (a measured
    bot not rated here yet: its published one; None for a person with no rated game)."""
    from ..saves.ratings import current_rating

    entry = _named(player.as_dict(), player.key, player.name)
    standing = standings.get(player.key)
    rating = current_rating(player.key, standings)
    entry["rating"] = rating.as_dict() if rating else None
    entry["rated_games"] = standing.games if standing else 0
    entry["rating_change_last_10"] = round(standing.change(), 4) if standing else None
    return entry


def _named(entry: dict, key: str, name: str | None = None) -> dict:
    """One player's JSON with the one name the screens use (`name`; `player` in the ratings
    list), who it is (`key`, `kind`) and, for a difficulty's bot, the `level`."""
    from ..players.difficulty import level_of
    from ..saves.ratings import bot_of, kind_of

    title = player_title(key, name)
    entry["player" if "player" in entry else "name"] = title
    bot = bot_of(key)
    entry.update(key=shown(key, 200), kind=kind_of(key), level=level_of(bot[0]) if bot else None)
    return entry


def ratings_table(board):
    """Best first: the rating (the cautious estimate), then mean and uncertainty, games and recent change."""
    from rich.table import Table

    table = Table(title=t("stats.ratings_title"), title_justify="left")
    names = [rating_label(standing) for standing in board]
    table.add_column(t("stats.player"), no_wrap=True, min_width=min(NAME_COLUMN, max(map(len, names), default=0)))
    for key in ("stats.rating_ordinal", "stats.rating_mu", "stats.rating_sigma", "stats.rated_games",
                "stats.rating_change"):
        table.add_column(t(key), justify="right")
    for standing, name in zip(board, names):
        rating = standing.rating
        table.add_row(
            as_text(name), rating_number(rating.ordinal), local_number(rating.mu, 1), local_number(rating.sigma, 2),
            str(standing.games), rating_change(standing.change()),
        )
    return table


def rating_label(standing) -> str:
    """A rated player as the tables show it: the one name every screen gives them."""
    return shown(player_title(standing.key), 80)


def wins_chart(players):
    """Wins as bars of '#' (ASCII, so any terminal shows it), scaled to the leader."""
    from rich.table import Table
    from rich.text import Text

    most = max(p.wins for p in players) or 1
    chart = Table(title=t("stats.chart_wins"), title_justify="left", show_header=False, box=None, padding=(0, 1))
    chart.add_column()
    chart.add_column()
    chart.add_column(justify="right")
    for p in players:
        length = round(BAR_WIDTH * p.wins / most)
        chart.add_row(as_text(player_title(p.key, p.name)), Text("#" * length, style="green"), str(p.wins))
    return chart


def games_table(rows):
    from rich.table import Table

    table = Table(title=t("stats.games_title"), title_justify="left")
    for key in ("stats.game_id", "stats.date", "stats.players", "stats.totals", "stats.winners", "stats.variants"):
        table.add_column(t(key))
    for row in rows:
        table.add_row(
            str(row.id), as_text(row.date.replace("T", " ").removesuffix("+00:00")),
            as_text(", ".join(map(shown_name, row.players))), " / ".join(map(str, row.totals)),
            as_text(", ".join(map(shown_name, row.winner_names))), as_text(", ".join(row.variants) or "-"),
        )
    return table


def shown_name(name: str) -> str:
    from ..common.untrusted import NAME_MAX

    return shown(name, NAME_MAX)


def as_text(value: str):
    """A table cell from the database (names come from records: untrusted) as plain Rich text:
    never markup, no control characters. A plain `str` cell would be read as Rich markup."""
    from rich.text import Text

    return Text(shown(value, 200))
