"""`duckcover replay FILE [--json]`: re-check a record and print its outcome."""
from __future__ import annotations

import sys
from pathlib import Path

from ..errors import DuckError
from ..record import RecordError, dumps, loads, replay, summary


def add_parser(sub) -> None:
    parser = sub.add_parser("replay", help="re-check a game record and show its scorepad")
    parser.add_argument("file", help="a duckcover-record/1 JSON file")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON (RECORD.md)")
    parser.set_defaults(command="replay")


def load_game(path: str):
    """The replayed game, or a one-line error (`file: round r, turn t, seat s: reason`)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise RecordError(f"cannot read: {getattr(err, 'strerror', None) or err}") from None
    data = loads(text)
    return data, replay(data)


def run(args) -> int:
    try:
        data, game = load_game(args.file)
    except (RecordError, DuckError) as err:
        print(f"{args.file}: {err}", file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.write(dumps(summary(game)))
        return 0
    from ..scorepad import print_summary

    print_summary(game, data)
    return 0
