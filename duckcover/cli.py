"""The `duckcover` command. Each subcommand lives in duckcover/commands/<name>.py with
`add_parser(subparsers)` and `run(args) -> int`; bad input is one line and exit status 2."""
from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = ("play", "replay", "review", "arena", "bots", "stats", "serve", "admin")


class UsageError(Exception):
    """Bad command-line input: reported as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one clear line instead of usage + message
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser(only: str | None = None) -> Parser:
    """The command line; with `only`, just that command's options: `duckcover play` then loads
    no other command's modules (statistics, arena, replay...) before the game's first frame."""
    parser = Parser(prog="duckcover", description="Duck & Cover in the terminal.")
    parser.add_argument("--version", action="version", version=f"duckcover {_version()}")
    sub = parser.add_subparsers(dest="command", parser_class=Parser, metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
        module = _command(name)
        if module is not None:
            module.add_parser(sub)
    return parser


def _command(name: str):
    try:
        return importlib.import_module(f"duckcover.commands.{name}")
    except ModuleNotFoundError as err:
        if err.name == f"duckcover.commands.{name}":
            return None  # not built yet
        raise


def _version() -> str:
    from . import __version__

    return __version__


def _guard_game_process() -> None:
    """Before any command can start a bot: the game's memory, descriptors and command line
    closed to other processes of this user (non-dumpable), and the data directory named as
    one no bot may read (duckcover.players.confine)."""
    from .players.confine import keep_private, protect_game_process
    from .saves.paths import data_dir

    protect_game_process()
    keep_private(str(data_dir()))


def command_first(argv: list[str]) -> list[str]:
    """`duckcover --lang fr play` is `duckcover play --lang fr`: options given before the
    command are the command's, as they are play's in plain `duckcover [options]`. The command
    is the first word in COMMANDS that is not the value of the option before it (`--name
    stats` names a player)."""
    for index, word in enumerate(argv):
        if word in ("-h", "--help", "--version") or word == "--":
            return argv  # the top-level parser's own options, or all that follows is values
        if word in COMMANDS and not (index and _takes_value(argv[index - 1], word)):
            return [word, *argv[:index], *argv[index + 1:]] if index else argv
    return argv


def _takes_value(option: str, command: str) -> bool:
    """Whether `option`, written just before the word `command`, takes that word as its value,
    as one of the command's options or of play's (plain `duckcover`). An optional value
    (`--resume [N]`) never means a command's name."""
    if not option.startswith("-") or "=" in option:
        return False
    for name in dict.fromkeys((command, "play")):
        module = _command(name)
        if module is None:
            continue
        commands = Parser(prog="duckcover").add_subparsers(parser_class=Parser)
        module.add_parser(commands)
        # argparse keeps a parser's options by name in _option_string_actions; nothing public asks.
        action = commands.choices[name]._option_string_actions.get(option)
        if action is not None and action.nargs not in (0, argparse.OPTIONAL):
            return True
    return False


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    argv = command_first(argv)
    # Plain `duckcover [options]` is `duckcover play [options]`: the app.
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        if _command("play") is not None:
            argv = ["play", *argv]
    # A known command needs only its own parser; anything else gets them all (help, errors).
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "command", None):
            parser.print_help()
            return 0
        _guard_game_process()
        return int(_command(args.command).run(args) or 0)
    except UsageError as err:
        print(f"duckcover: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
