"""`duckcover arena --bot A --bot B ... [--games N] [--seed S] [--jobs J] [--json]`: bots on duplicate deals."""
from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager, redirect_stdout
from pathlib import Path

from ..common.untrusted import LABEL_MAX, shown
from ..engine.errors import RulesError
from ..engine.rules import VARIANTS, rules_with_variants
from ..players.arena import ArenaConfig, WorkerDied, report, run as run_arena
from ..players.cluster import ClusterError
from ..players.harness import new_seed
from ..players.plugins import BotLoadError, is_builtin, resolve_bot
from ..players.safety import DEFAULT_HARD_LIMIT
from ..players.sandbox import probe
from .numbers import MAX_BUDGET, MAX_JOBS, seconds, whole

MAX_DEALS = 10_000_000  # docs/arena.md's tournament is 250,000; beyond this the results outgrow memory
MAX_DECISION_SECONDS = 3600.0  # an hour a decision; larger is no limit at all (and `inf` is no JSON number)


def add_parser(sub) -> None:
    parser = sub.add_parser(
        "arena",
        help="play bots against each other on duplicate deals and compare them",
        description="Each deal is played once per rotation of the bots over the seats (docs/bots.md).",
    )
    parser.add_argument("--bot", action="append", default=[], metavar="SPEC",
                        help="a bot: name, difficulty, package.module:Class or file.py:Class (one per seat, 2-9)")
    parser.add_argument("--games", type=whole(1, MAX_DEALS), default=100, metavar="N",
                        help=f"deals to play, each in every seating, 1-{MAX_DEALS} (100)")
    parser.add_argument("--seed", type=whole(), default=None,
                        help="arena seed: same seed, same deals, same numbers (default: 128 random bits, printed)")
    parser.add_argument("--jobs", type=whole(1, MAX_JOBS), default=1, metavar="N",
                        help=f"worker processes, 1-{MAX_JOBS} (1)")
    parser.add_argument("--cluster", default=None, metavar="ADDRESS",
                        help="run the deals on a Dask cluster, e.g. tcp://10.0.0.5:8786 (needs duckcover[cluster]; docs/arena.md)")
    parser.add_argument("--budget", type=whole(1, MAX_BUDGET), default=None, metavar="N",
                        help=f"think budget (iterations) for every bot, 1-{MAX_BUDGET}")
    parser.add_argument("--time-limit", type=seconds(0, MAX_DECISION_SECONDS, above=True), default=None, metavar="SEC",
                        help=f"wall time per decision each bot should keep to (at most {MAX_DECISION_SECONDS:g})")
    parser.add_argument("--hard-limit", type=seconds(0, MAX_DECISION_SECONDS, meaning=" (0: none)"),
                        default=DEFAULT_HARD_LIMIT, metavar="SEC",
                        help=f"cut-off after which a fallback move is played, 0-{MAX_DECISION_SECONDS:g} "
                             f"({DEFAULT_HARD_LIMIT:g}; 0: none, trusted bots only)")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME[:ROUNDS]",
                        help="a rules variant, in every round or only in some: competition:3 (repeatable; "
                        + ", ".join(VARIANTS) + ")")
    parser.add_argument("--trusted", action="store_true",
                        help="run every bot in the arena's own process (faster; only for bots you trust)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.set_defaults(command="arena")


def config_from(args) -> ArenaConfig:
    """The arena's settings; ValueError with a one-line reason if they make no sense."""
    if len(args.bot) < 2:
        raise ValueError("give at least two bots, one --bot per seat")
    if args.cluster is not None and args.jobs != 1:
        raise ValueError("--jobs is for a run on this machine; on a cluster its workers are the jobs")
    try:
        rules_with_variants(args.variant).check_players(len(args.bot))
    except (RulesError, ValueError) as err:
        raise ValueError(str(err)) from None
    for spec in dict.fromkeys(args.bot):
        try:
            if args.trusted or is_builtin(spec):
                resolve_bot(spec, budget=args.budget)
            else:
                probe(spec, budget=args.budget)  # loaded in a bot process, never here
        except BotLoadError as err:
            raise ValueError(str(err)) from None
    return ArenaConfig(
        specs=tuple(args.bot),
        deals=args.games,
        seed=new_seed() if args.seed is None else args.seed,
        trusted=args.trusted,
        variants=tuple(args.variant),
        budget=args.budget,
        time_limit=args.time_limit,
        hard_limit=args.hard_limit or None,
    )


def run(args) -> int:
    show_progress = not args.json and sys.stderr.isatty()
    with _quiet_stdout():  # a bot in this process that prints must not spoil the table or the JSON
        try:
            config = config_from(args)  # loading a bot may print too
        except ValueError as err:
            print(f"duckcover arena: {shown(err, 400)}", file=sys.stderr)
            return 2
        try:
            results, ran_on = _with_progress(config, args) if show_progress else _play(config, args, None)
        except (ClusterError, WorkerDied) as err:  # a dead worker names the bots that can have ended it
            print(f"duckcover arena: {shown(err, 400)}", file=sys.stderr)
            return 2
    figures = with_names(report(config, results, ran_on))
    if args.json:
        sys.stdout.write(json.dumps(figures, indent=1) + "\n")
    else:
        print_table(figures)
    return 0


@contextmanager
def _quiet_stdout():
    """Standard output (the file descriptor, so raw writes too, and the --jobs workers started
    meanwhile) goes nowhere while the bots play; it comes back for the results."""
    sys.stdout.flush()
    saved = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    try:
        with open(os.devnull, "w") as nowhere, redirect_stdout(nowhere):  # sys.stdout may not be fd 1
            yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _play(config: ArenaConfig, args, progress) -> tuple[list, dict]:
    """The deals' results and where they ran: on this machine, or on the cluster."""
    if args.cluster is None:
        return run_arena(config, args.jobs, progress=progress), {"where": "local", "jobs": args.jobs}
    from ..players.cluster import run as run_on_cluster  # Dask is imported there, only when asked for

    return run_on_cluster(config, args.cluster, progress=progress)


def _with_progress(config: ArenaConfig, args):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (TextColumn("deals"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("arena", total=config.deals)
        return _play(config, args, lambda done: bar.advance(task, done))


def with_names(figures: dict) -> dict:
    """Each difficulty's bot by the one name the app and `duckcover stats` give it ("Medium
    (greedy)"), as `name`; any other bot has none (the table shows its spec)."""
    from ..app.words import player_title
    from ..players.difficulty import level_of
    from ..saves.ratings import BOT, bot_of

    for row in figures["bots"]:
        bot = bot_of(BOT + row["rated_as"])
        row["name"] = player_title(BOT + row["rated_as"]) if bot and level_of(bot[0]) else None
    return figures


def print_table(figures: dict) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    rules = ", ".join(figures["rules"]["variants"]) or "standard rules"
    table = Table(
        title=Text(f"{figures['deals']} deals x {figures['seatings']} seatings = {figures['games']} games "
                   f"(seed {figures['seed']}, {rules})"),
        caption="score: mean total per game; Δ field: total minus the other seats' mean; lower is better; "
                "rating: a cautious estimate of skill, the mean minus three times its uncertainty, higher is "
                "better; a difficulty's bot starts from its published rating, as in `duckcover stats` and the app",
    )
    for name in ("bot", "seats", "score", "wins", "Δ field ±95%", "rating", "μ ± σ", "ms p50", "ms max", "fallbacks"):
        table.add_column(name, justify="left" if name == "bot" else "right", no_wrap=True)
    short = labels([row["bot"] for row in figures["bots"]])
    names = {row["bot"]: row.get("name") or short[row["bot"]] for row in figures["bots"]}
    # Two specs for one bot (medium, greedy): one name and rating, the rows told apart by the spec.
    shared = {name for name in names.values() if list(names.values()).count(name) > 1}
    names = {spec: f"{short[spec]}: {name}" if name in shared else name for spec, name in names.items()}
    table.columns[0].min_width = min(28, max(len(name) for name in names.values()))
    for row in figures["bots"]:
        diff, ci = row["diff_to_field"]["mean"], row["diff_to_field"]["ci95"]
        table.add_row(
            Text(names[row["bot"]]),
            str(row["seats"]),
            _fmt(row["mean_score"], ".2f"),
            _fmt(row["win_rate"], ".1%"),
            _fmt(diff, "+.2f") + (f" ±{(ci[1] - ci[0]) / 2:.2f}" if ci else ""),
            _fmt(row["rating"]["ordinal"], ".1f"),  # as every other place writes a rating
            f"{row['rating']['mu']:.2f} ± {row['rating']['sigma']:.2f}",
            _fmt(row["decision_ms"]["median"], ".3f"),
            _fmt(row["decision_ms"]["max"], ".1f"),
            str(row["fallbacks"]),
        )
    console = Console()
    if not console.is_terminal:  # piped: no need to squeeze the table into 80 columns
        console = Console(width=200)
    console.print(table)
    reasons = Table(title="why the Referee played for a bot")
    for name in ("bot", "fallbacks", "reason"):
        reasons.add_column(name, justify="right" if name == "fallbacks" else "left")
    for row in figures["bots"]:
        for reason, count in row["fallback_reasons"].items():
            reasons.add_row(Text(names[row["bot"]]), str(count), Text(shown(reason, 120)))
    if reasons.row_count:
        console.print(reasons)
    walls = figures["protections"]
    console.print(Text(f"How: {walls['summary']}"), soft_wrap=True)
    for warning in walls["warnings"]:
        console.print(Text(f"Warning: {warning}"), soft_wrap=True)
    for row in figures["bots"]:
        if row["output"]:
            console.print(Text(f"{names[row['bot']]} printed (not shown while it played): {shown(row['output'], 400)}"),
                          soft_wrap=True)


def labels(specs: list[str]) -> dict[str, str]:
    """A short label per spec: a file spec shows as its file name (and class), with as many of
    its folders as it takes to tell two files of the same name apart. Printable and bounded."""
    parts = {spec: _path_parts(spec) for spec in specs}
    depth = {spec: 1 for spec in specs}
    while True:
        shown_as = {spec: _join(parts[spec], depth[spec]) for spec in specs}
        clashes = [spec for spec in specs if list(shown_as.values()).count(shown_as[spec]) > 1
                   and depth[spec] < len(parts[spec][0])]
        if not clashes:
            return {spec: shown(text, LABEL_MAX) for spec, text in shown_as.items()}
        for spec in clashes:
            depth[spec] += 1


def _path_parts(spec: str) -> tuple[list[str], str]:
    head, sep, tail = spec.rpartition(":")
    path, attr = (head, tail) if sep and not ("/" in tail or "\\" in tail) else (spec, "")
    if "/" not in path and "\\" not in path:
        return [spec], ""
    return list(Path(path).parts), attr


def _join(parts: tuple[list[str], str], depth: int) -> str:
    path, attr = parts
    text = "/".join(path[-depth:])
    return text + (f":{attr}" if attr else "")


def _fmt(value, spec: str) -> str:
    return "-" if value is None else format(value, spec)
