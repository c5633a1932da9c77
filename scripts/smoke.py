"""Smoke-test the installed duckcover, the way a user gets it (CI runs it against the wheel).

    VENV/bin/python scripts/smoke.py SOURCE_TREE

Run it from outside the source tree with the python of a virtual environment that installed
the wheel: it refuses to test a `duckcover` imported from SOURCE_TREE. It runs the installed
`duckcover` command (--help, --version, bots, replay of a golden record against its stored
output) and plays a headless watch game from the command line's own options through the app
factory, then replays the record that game saved. One line per check; exit status 1 on the
first failure.
"""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

WATCH = ["play", "--watch", "--bots", "4", "--speed", "instant", "--seed", "7", "--lang", "en"]


def fail(message: str) -> None:
    print(f"smoke: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def command(*args: str, env: dict | None = None) -> str:
    """The installed `duckcover` script, as a user types it."""
    exe = Path(sysconfig.get_path("scripts")) / "duckcover"
    out = subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, timeout=120)
    if out.returncode != 0:
        fail(f"duckcover {' '.join(args)} exited {out.returncode}: {out.stderr.strip()[-500:]}")
    print(f"smoke: ok: duckcover {' '.join(args)}")
    return out.stdout


async def watch_game(data: Path) -> None:
    """`duckcover play --watch ...` without a terminal: the same options, the same app factory."""
    from duckcover.app import create_app
    from duckcover.cli import build_parser
    from duckcover.commands.play import build_options

    options = build_options(build_parser().parse_args(WATCH))
    options.data_dir = data
    app = create_app(options)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(6000):  # ~60 s at most
            if app.controller is not None and app.controller.game.over:
                break
            await pilot.pause(0.01)
        else:
            fail("the watch game did not finish")
        await pilot.pause()
    print(f"smoke: ok: a headless watch game ({' '.join(WATCH)}) finished")


def main() -> None:
    source = Path(sys.argv[1]).resolve()
    import duckcover

    where = Path(duckcover.__file__).resolve()
    if where.is_relative_to(source):
        fail(f"duckcover was imported from the source tree ({where}), not the installed wheel")
    print(f"smoke: duckcover {duckcover.__version__} from {where.parent}")

    with tempfile.TemporaryDirectory(prefix="duckcover-smoke-") as home:
        checks(source, duckcover.__version__, Path(home))
    print("smoke: all checks passed")


def checks(source: Path, version: str, home: Path) -> None:
    """Every check, with HOME, the XDG folders and the data directory inside `home`."""
    os.environ.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local" / "share"),
                      DUCKCOVER_DATA=str(home / "data"), NO_COLOR="1", COLUMNS="100")
    os.environ.pop("DUCKCOVER_SPLASHES", None)

    if "replay" not in command("--help"):
        fail("--help does not list the replay command")
    if command("--version").strip().split()[-1] != version:
        fail("--version does not print the package's version")
    listed = command("bots")
    if not all(name in listed for name in ("random", "greedy", "expert")):
        fail(f"`duckcover bots` lacks a built-in bot:\n{listed}")

    golden = source / "tests" / "golden" / "g4_greedy_seed1.json"
    stored = json.loads(golden.with_suffix(".replay.json").read_text(encoding="utf-8"))
    if json.loads(command("replay", str(golden), "--json")) != stored:
        fail(f"replay --json of {golden.name} differs from its stored output")
    if not command("replay", str(golden), "--summary").strip():
        fail("replay --summary printed nothing")

    asyncio.run(watch_game(home / "data"))
    records = [p for p in (home / "data").rglob("*.json") if '"duckcover-record/' in p.read_text(encoding="utf-8")]
    if not records:
        fail(f"the watch game left no record in {home / 'data'}")
    command("replay", str(records[0]), "--summary")


if __name__ == "__main__":
    main()
