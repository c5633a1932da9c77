"""`duckcover play` (also plain `duckcover [options]`): the Textual app."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..common.i18n import LANGUAGES
from ..engine.rules import APP_VARIANTS, BOX_PLAYERS, CAPTAIN, MAX_BY, MIN_PLAYERS
from ..players.difficulty import DIFFICULTIES
from ..players.sequence import SPEEDS
from .numbers import whole

MAX_BOTS = BOX_PLAYERS - 1  # beside at least one human
# 0 bots only beside --humans (pass-and-play among humans alone); build_options says so.
BOTS = whole(0, MAX_BOTS, meaning=f" (a table seats {MIN_PLAYERS}-{BOX_PLAYERS} players; 0 only with --humans)")


def add_parser(sub) -> None:
    parser = sub.add_parser("play", help="play Duck & Cover (the default command)")
    parser.add_argument("--bots", type=BOTS, metavar="N",
                        help=f"start at once against N bots (1-{MAX_BOTS}); with --humans, 0-{MAX_BOTS - 1}")
    parser.add_argument("--difficulty", default="medium", metavar="BOT",
                        help=f"the bots for --bots/--watch: {', '.join(DIFFICULTIES)} or any installed bot (default medium)")
    parser.add_argument("--seed", type=whole(), metavar="S", help="fix the deal")
    parser.add_argument("--watch", action="store_true", help="every seat a bot: watch a game play out")
    parser.add_argument("--speed", choices=SPEEDS, default="normal", help="pauses between reveals")
    parser.add_argument("--resume", nargs="?", const="1", metavar="N",
                        help="continue an unfinished game: the most recent one, or number N of "
                             "'--resume list' (which lists them)")
    parser.add_argument("--no-mouse", action="store_true", help="turn mouse tracking off (useful over SSH)")
    parser.add_argument("--lang", choices=LANGUAGES, help="language of the interface (default: from the locale)")
    parser.add_argument("--name", metavar="NAME", help="your name at the table")
    parser.add_argument("--humans", metavar="NAMES",
                        help='pass-and-play: several humans at one keyboard, e.g. --humans "Ann,Ben" (with --bots N)')
    parser.add_argument("--no-handover", action="store_true",
                        help="pass-and-play without the hand-over screen between humans")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME[:ROUNDS]",
                        help="a variant, in every round or only in some: competition:3, surprises:1,2 (repeatable; "
                        + ", ".join(APP_VARIANTS) + ")")
    parser.add_argument("--max-by", choices=MAX_BY, default="number", help="what Max moves")
    parser.add_argument("--captain", choices=CAPTAIN, default="rotate", help="who is Captain each round")
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    parser.set_defaults(command="play")


def fail(message: str) -> int:
    from ..common.untrusted import shown

    print(f"duckcover: {shown(message, 500)}", file=sys.stderr)
    return 2


def name_value(text: str) -> str:
    """`--name`: refused (not repaired) when it holds control characters, bytes that are not
    UTF-8 (the shell passes them as surrogates), or is blank or too long."""
    from ..common.i18n import t
    from ..common.untrusted import excerpt, name_problem

    problem = name_problem(text)
    if problem:
        raise ValueError(t("play.bad_name", problem=f"{problem}: {excerpt(text)}"))
    return text


def build_options(args):
    """AppOptions from the command line; raises ValueError with one line for bad input."""
    from ..app.options import AppOptions, quick_seats
    from ..engine.errors import RulesError
    from ..engine.rules import rules_with_variants

    try:
        rules = rules_with_variants(args.variant, max_by=args.max_by, captain=args.captain)
    except RulesError as err:
        raise ValueError(str(err)) from None
    for variant in rules.in_force:
        if variant.not_in_app:  # Artists Pack only means more seats; the app seats up to 7 players
            raise ValueError(f"the {variant.name} variant {variant.not_in_app}")
    seats = None
    if args.humans is not None:
        seats = table_from_humans(args)
        try:
            rules.check_players(len(seats))
        except RulesError as err:
            raise ValueError(str(err)) from None
    elif args.bots == 0:
        raise ValueError(f"--bots 0 leaves nobody to play against: give 1-{MAX_BOTS} bots, or --humans to play among humans")
    elif args.watch or args.bots:
        if args.name is not None:
            name_value(args.name)
        bots = args.bots or 3
        seats = quick_seats(bots, args.name, args.difficulty, watch=args.watch)
        if args.watch and len(seats) < 2:
            seats = quick_seats(2, None, args.difficulty, watch=True)
        try:
            rules.check_players(len(seats))
        except RulesError as err:
            raise ValueError(str(err)) from None
    return AppOptions(
        seats=seats, rules=rules, seed=args.seed, speed=args.speed, lang=args.lang,
        mouse=not args.no_mouse, resume=args.resume is not None, data_dir=args.data_dir, watch=args.watch,
        handover=not args.no_handover, named_bots=(args.difficulty,),
    )


def table_from_humans(args):
    """`--humans "Ann,Ben" [--bots N]`: those humans (in order), then N bots."""
    from ..app.passplay import human_names, pass_and_play_seats

    if args.watch:
        raise ValueError("--humans and --watch do not go together (--watch has no humans)")
    if args.name:
        raise ValueError("--humans already names every human; drop --name")
    seats = pass_and_play_seats(human_names(args.humans), args.bots or 0, args.difficulty)
    if len(seats) > BOX_PLAYERS:
        raise ValueError(f"a table seats {MIN_PLAYERS}-{BOX_PLAYERS} players, not {len(seats)} (--humans plus --bots)")
    return seats


def check_bot(spec: str) -> str | None:
    """Why `spec` cannot play, or None. A bot that did not come with duckcover is tried in a
    process of its own, where it will play: its code never runs in the app's process."""
    from ..players.plugins import BotLoadError, is_builtin, load_bot_class
    from ..players.sandbox import probe

    try:
        if is_builtin(spec):
            load_bot_class(spec)
        else:
            probe(spec)
    except BotLoadError as err:
        return str(err)
    return None


def run(args) -> int:
    from ..common.i18n import detect, set_language, t
    from ..saves.settings import load

    # Before the default seat names are chosen: --lang, else the saved settings, else the locale.
    set_language(args.lang or load(args.data_dir)[0].lang or detect())
    try:
        options = build_options(args)
    except ValueError as err:
        return fail(str(err))
    if options.seats and args.difficulty not in DIFFICULTIES:  # the built-in ones ship with us
        problem = check_bot(args.difficulty)
        if problem:
            return fail(problem)
    if args.name is not None and not options.seats:
        try:
            name_value(args.name)
        except ValueError as err:
            return fail(str(err))
    if options.resume:
        if args.resume == "list":
            return list_unfinished(options.data_dir)
        try:
            # Read and replayed once, here (a broken save is refused before any screen); the
            # app continues from this very game instead of reading and replaying it again.
            options.resume_path, *resumed = resume_choice(args.resume, options.data_dir)
            options.resumed = tuple(resumed)
        except ValueError as err:
            return fail(str(err))
    if not sys.stdout.isatty():
        return fail(t("play.not_a_terminal"))  # not escape codes into a file
    import gc

    from ..app import create_app

    # Launch (issue 33): importing Textual and building the first table allocate hundreds of
    # thousands of objects, nearly all kept, and the collector walked the young ones over and
    # over (about a tenth of the time to the first frame). It is held until the app has run for
    # a moment (DuckCoverApp.on_mount), or until the app ends.
    gc.disable()
    try:
        app = create_app(options)
        try:
            app.run(mouse=options.mouse)
        finally:
            app.saver.shutdown(wait=True)  # the last turn's save lands before the process ends
    finally:
        gc.enable()
    # Textual sets 1 when the app ended on an error, 128+N after signal N (see app.py).
    return app.return_code or 0


def resume_choice(which: str, root):
    """The unfinished game `--resume WHICH` names, as (file, record, game): checked here, so a
    bad one is one line before the terminal is taken. 1 = the most recent one no other
    duckcover holds."""
    from ..app.app import most_recent_free
    from ..app.words import error_text
    from ..common.i18n import t
    from ..common.untrusted import excerpt
    from ..saves import storage
    from ..saves.record import RecordError

    paths = storage.unfinished_paths(root)
    if not paths:
        raise ValueError(t("play.no_resume"))
    if which.isdigit() and 1 <= int(which) <= len(paths):
        path = paths[int(which) - 1]
    elif which.endswith(".json") and storage.games_dir(root) / Path(which).name in paths:
        path = storage.games_dir(root) / Path(which).name
    else:
        raise ValueError(t("play.resume_which", value=excerpt(which)))
    try:
        if which == "1":
            path = most_recent_free(root)
        elif storage.in_use(path):
            raise ValueError(t("play.in_use", game=path.name))
        record = storage.load(path)
        game = storage.resume(record)
    except RecordError as err:
        raise ValueError(t("play.bad_resume", error=error_text(err))) from None
    return path, record, game


def list_unfinished(root) -> int:
    """`--resume list`: the unfinished games, numbered as --resume N takes them."""
    from ..common.i18n import t
    from ..common.untrusted import shown
    from ..saves import storage
    from ..saves.record import RecordError, read_players

    paths = storage.unfinished_paths(root)
    if not paths:
        print(t("play.no_resume"))
        return 0
    print(t("play.unfinished_title"))
    for number, path in enumerate(paths, start=1):
        busy = " *" if storage.in_use(path) else ""
        print(shown(f"{number:>3}  {unfinished_line(path)}{busy}", 300))
    return 0


def unfinished_line(path) -> str:
    """One unfinished game for `--resume list`: when it was last played, where it stands and
    the scores so far (replayed, never taken from the file's word), then its file name."""
    from datetime import datetime

    from ..app.words import error_text
    from ..common.i18n import t
    from ..engine.errors import DuckError
    from ..saves import storage
    from ..saves.record import RecordError, read_players

    try:
        played = datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    except OSError:
        played = "?"
    record: dict = {}
    try:
        record = storage.load(path)
        game = storage.resume(record)
    except (RecordError, DuckError, OSError) as err:
        try:
            names = ", ".join(read_players(record)[0])
        except RecordError:
            names = "?"
        return t("play.unfinished_broken", date=played, players=names, error=error_text(err), file=path.name)
    scores = ", ".join(f"{name} {total}" for name, total in zip(game.names, game.totals))
    return t("play.unfinished_line", date=played, round=min(game.round_index + 1, game.rules.rounds()),
             rounds=game.rules.rounds(), turn=game.turn_number, scores=scores, file=path.name)
