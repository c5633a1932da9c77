"""`duckcover bots [SPEC] [--json]`: every bot this installation can load, with where it comes
from; with a SPEC (a name, a module path or `FILE.py[:Class]`), whether that bot loads, and what
it is."""
from __future__ import annotations

import json
import sys

from ..common.untrusted import shown
from ..players.difficulty import DIFFICULTIES
from ..players.plugins import BotLoadError, available_bots, is_builtin, load_bot_class


def add_parser(sub) -> None:
    parser = sub.add_parser("bots", help="list the available bots, or check that one loads")
    parser.add_argument("spec", nargs="?", metavar="SPEC",
                        help="check this bot: a name, package.module:Class or FILE.py[:Class]")
    parser.add_argument("--json", action="store_true", help="print the list (or the check) as JSON")
    parser.set_defaults(command="bots")


def run(args) -> int:
    if args.spec is not None:
        return check(args.spec, args.json)
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
    print("also: package.module:Class, path/to/file.py:Class (check one: duckcover bots FILE.py)")
    return 0


def check(spec: str, as_json: bool) -> int:
    """Load `spec` where it would play (a bot you did not write: in a process of its own, so
    its code never runs in this one) and say what it is; one line and status 2 if it cannot."""
    try:
        info = describe(spec)
    except BotLoadError as err:
        print(f"duckcover bots: {shown(err, 400)}", file=sys.stderr)
        return 2
    if as_json:
        sys.stdout.write(json.dumps(info, indent=1) + "\n")
        return 0
    hooks = ", ".join(info["hooks"]) or "none"
    limit = "none" if info["time_limit"] is None else f"{info['time_limit']:g} s"
    print(f"{shown(spec, 200)}: loads. {shown(info['name'], 64)} ({shown(info['class'], 64)}): "
          f"{shown(info['description'], 200)}")
    print(f"  from {shown(info['source'], 200)}; hooks: {hooks}; time_limit: {limit}; runs {info['runs']}")
    return 0


def describe(spec: str) -> dict:
    if is_builtin(spec):
        cls, source = load_bot_class(spec)
        from ..players.bot import Bot

        hooks = [h for h in ("start_game", "start_round", "observe") if getattr(cls, h) is not getattr(Bot, h)]
        return {"name": str(cls.name), "description": str(cls.description), "class": cls.__qualname__,
                "source": source, "hooks": hooks, "time_limit": cls.time_limit, "runs": "in the game's process (built in)"}
    from ..players.sandbox import probe

    return {**probe(spec), "runs": "in a process of its own (protocol duckcover-bot/1)"}
