"""One maker of seeds (duckcover.engine.game.new_seed): every game dealt without a given seed gets
128 random bits, whether it starts in the engine, the app, the arena or on a server. A 32-bit
seed falls in minutes to matching the face-up layouts against every candidate (the docstring
of new_seed); these tests fail if any of those doors goes back to a short seed."""
from __future__ import annotations

import ast
from pathlib import Path

import duckcover
from duckcover.commands import arena as arena_command
from duckcover.engine import Game, new_seed
from duckcover.net.server import TableServer
from duckcover.net.sessions import Identity
from duckcover.players import harness

from serve_helpers import ProtocolClient

DRAWS = 24  # P(all of 24 draws of 128 bits < 2**120) = 2**-192: the test cannot fail by chance
WIDE = 2**120


def test_new_seed_draws_128_bits_and_never_repeats():
    seeds = [new_seed() for _ in range(DRAWS)]
    assert all(0 <= s < 2**128 for s in seeds)
    assert max(seeds) >= WIDE
    assert len(set(seeds)) == DRAWS


def test_a_game_without_a_seed_gets_128_bits_and_a_given_seed_is_kept():
    assert max(Game(2).seed for _ in range(DRAWS)) >= WIDE
    assert Game(2, seed=5).seed == 5


def test_the_harness_name_is_the_same_function():
    assert harness.new_seed is new_seed  # app.py and the arena command import it from there


def test_the_arena_without_seed_draws_128_bits():
    from duckcover import cli

    # The real parser's arguments, so a new arena option cannot leave this test behind.
    args = cli.build_parser().parse_args(["arena", "--bot", "greedy", "--bot", "random", "--games", "1"])
    assert args.seed is None
    seeds = [arena_command.config_from(args).seed for _ in range(DRAWS)]
    assert max(seeds) >= WIDE
    args.seed = 9
    assert arena_command.config_from(args).seed == 9


async def test_a_server_table_created_without_a_seed_gets_128_bits(tmp_path):
    server = TableServer(tmp_path, grace=0.3, pace=0)
    sock = tmp_path / "tables.sock"
    await server.start(sock)
    try:
        client = await ProtocolClient.connect(sock, server.issue_token(Identity("ann", None)))
        await client.until("welcome")
        client.send("create", seats=["human", "easy"], name="t")
        await client.until("seated")
        table = next(iter(server.tables.values()))
        seeds = [table.seed]
        for _ in range(2):  # a login name may hold three unfinished tables (serve's bound)
            client.send("leave")
            await client.until("left")
            client.send("create", seats=["human", "easy"], name="t")
            await client.until("seated")
            seeds += [t.seed for t in server.tables.values() if t.seed not in seeds]
        # 3 draws: the chance that all fall under 2**120 is 2**-24.
        assert max(seeds) >= WIDE
        await client.close()
    finally:
        await server.close()


def test_no_other_module_makes_a_seed_of_its_own():
    """Every call of a random-number maker in the package that could make a game seed is
    new_seed's; a second copy (with fewer bits) is how the 32-bit seeds came back."""
    makers = {"randbelow", "randbits", "randrange", "getrandbits"}
    found = []
    for path in Path(duckcover.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in makers:
                found.append((path.name, node.func.attr))
    # game.py: new_seed (secrets.randbits) and determinized's invented reshuffle seed (from the
    # searching bot's own rng, never a real deal's); arena.py: deal_seed derives from the arena
    # seed (128 bits out); seeding.py: DecisionRandom.getrandbits (a bot's coin, not a seed).
    allowed = {("game.py", "randbits"), ("game.py", "getrandbits"), ("arena.py", "getrandbits"),
               ("seeding.py", "getrandbits")}
    assert set(found) <= allowed, sorted(set(found) - allowed)
