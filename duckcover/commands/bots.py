"""`duckcover bots [--json]`: every bot this installation can load, with where it comes from."""
from __future__ import annotations

import json
import sys

from ..difficulty import DIFFICULTIES
from ..plugins import available_bots


def add_parser(sub) -> None:
    parser = sub.add_parser("bots", help="list the available bots and difficulty names")
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.set_defaults(command="bots")


def run(args) -> int:
    infos = available_bots()
    if args.json:
        data = {
            "bots": [info._asdict() for info in infos],
            "difficulties": DIFFICULTIES,
        }
        sys.stdout.write(json.dumps(data, indent=1) + "\n")
        return 0
    width = max((len(info.name) for info in infos), default=0)
    for info in infos:
        text = f"cannot load: {info.error}" if info.error else info.description
        print(f"{info.name:<{width}}  {text}  [{info.source}]")
    names = {info.name for info in infos if not info.error}
    aliases = ", ".join(
        f"{level}={bot}" + ("" if bot in names else " (not installed)") for level, bot in DIFFICULTIES.items()
    )
    print(f"difficulties: {aliases}")
    print("also: package.module:Class, path/to/file.py:Class")
    return 0
