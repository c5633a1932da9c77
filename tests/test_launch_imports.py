"""`duckcover play` imports only what its first table frame needs (issue 33: launch within 1.3x a
bare Textual app): the statistics and ratings (SQLite), the review, the arena, the server
(asyncssh), the other screens and the installed distributions' metadata load when first used."""
import json
import subprocess
import sys

# Each named module, and any module inside it, must be absent when the first table is drawn.
NOT_AT_LAUNCH = (
    "sqlite3", "duckcover.saves.stats", "duckcover.saves.ratings",  # statistics and ratings
    "duckcover.app.screens.review", "duckcover.players.review",  # the review
    "duckcover.players.arena", "duckcover.players.cluster",  # the arena
    "asyncssh", "duckcover.net",  # the server
    "importlib.metadata", "email", "zipfile",  # the entry points of every distribution
    "duckcover.app.screens.replay", "duckcover.app.screens.games", "duckcover.app.screens.stats",
    "duckcover.app.screens.settings", "duckcover.app.screens.lobby",  # screens opened later
    "hypothesis",
)

# The play command's own path, in a fresh interpreter: its parser, its options, the app, and the
# first table laid out and drawn (headless); then the modules loaded by then.
FIRST_TABLE = """
import asyncio, json, sys
from duckcover import cli
from duckcover.commands import play

args = cli.build_parser("play").parse_args(["play", "--bots", "3", "--seed", "1", "--lang", "en",
                                            "--data-dir", sys.argv[1]])
from duckcover.app import create_app

app = create_app(play.build_options(args))

async def first_table():
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert type(app.screen).__name__ == "TableScreen", app.screen
        print(json.dumps(sorted(sys.modules)))

asyncio.run(first_table())
"""


def test_the_first_table_of_duckcover_play_imports_none_of_the_modules_used_later(tmp_path):
    done = subprocess.run([sys.executable, "-c", FIRST_TABLE, str(tmp_path)], capture_output=True, text=True,
                          timeout=120, check=True)
    loaded = json.loads(done.stdout.splitlines()[-1])
    assert "duckcover.app.table.screen" in loaded  # (the table was really built)
    early = [name for name in loaded if any(name == heavy or name.startswith(heavy + ".") for heavy in NOT_AT_LAUNCH)]
    assert early == []
