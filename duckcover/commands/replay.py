"""`duckcover replay FILE [--json] [--summary]`: re-check a record, then step through it in the
app (on a terminal) or print its outcome (`--summary`, or when the output is not a terminal)."""
from __future__ import annotations

import sys
from pathlib import Path

from ..common.untrusted import shown
from ..engine.errors import DuckError
from ..saves.record import RecordError, dumps, read_file, replay, summary


def add_parser(sub) -> None:
    parser = sub.add_parser("replay", help="re-check a game record and show its scorepad")
    parser.add_argument("file", help="a duckcover-record/1 JSON file")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON (RECORD.md)")
    parser.add_argument("--summary", action="store_true", help="print the scorepad instead of opening the viewer")
    parser.add_argument("--lang", choices=("en", "de", "fr"), help="language of the viewer and the summary (default: from the locale)")
    parser.set_defaults(command="replay")


def load_game(path: str):
    """The replayed game, or a one-line error (`file: round r, turn t, seat s: reason`). The
    file is read with a bound, and only if it is a regular file (never /dev/zero or a FIFO)."""
    data = read_file(path)
    return data, replay(data)


def run(args) -> int:
    from ..app.words import error_text
    from ..common.i18n import DEFAULT, detect, language, set_language

    set_language(args.lang or detect())
    try:
        data, game = load_game(args.file)
    except (RecordError, DuckError) as err:
        # In English, the engine's own line (RECORD.md's example); else the summary's language.
        why = str(err) if language() == DEFAULT else error_text(err)
        print(shown(f"{args.file}: {why}", 500), file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.write(dumps(summary(game)))
        return 0
    if args.summary or not (sys.stdout.isatty() and sys.stdin.isatty()):
        from ..common.scorepad import print_summary

        print_summary(game, data)
        return 0
    from ..app.screens.replay import build_timeline, replay_app

    replay_app(build_timeline(data, game), Path(args.file).name, getattr(args, "lang", None)).run()
    return 0
