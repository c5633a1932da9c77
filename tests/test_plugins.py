"""Loading bots: entry points (built-in and third-party alike), module paths, file paths, bad specs."""
from importlib.metadata import EntryPoint

import pytest

from duckcover.cli import main
from duckcover.players import plugins
from duckcover.players.bot import Bot
from duckcover.players.difficulty import DIFFICULTIES
from duckcover.players.plugins import BotLoadError, available_bots, load_bot_class, resolve_bot
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot

FILE_BOT = """
from duckcover.players.bot import Bot

class FirstBot(Bot):
    name = "first"
    description = "Always the first legal move."

    def choose(self, view):
        moves = view.legal_moves()
        return moves[0] if moves else None
"""


@pytest.fixture
def bot_file(tmp_path):
    path = tmp_path / "first_bot.py"
    path.write_text(FILE_BOT)
    return path


def test_builtin_bots_load_through_the_entry_point_group():
    cls, source = load_bot_class("greedy")
    assert cls is GreedyBot
    assert source.startswith("entry point greedy = duckcover_bots.greedy:GreedyBot (duckcover ")
    assert load_bot_class("random")[0] is RandomBot


def test_the_builtin_table_is_the_entry_point_group_pyproject_declares_and_the_installation_has():
    import tomllib
    from importlib.metadata import entry_points
    from pathlib import Path

    declared = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert plugins.BUILTIN_BOTS == declared["project"]["entry-points"][plugins.GROUP]
    installed = {ep.name: ep.value for ep in entry_points(group=plugins.GROUP) if ep.dist.name == "duckcover"}
    assert plugins.BUILTIN_BOTS == installed


def install_third_party(tmp_path, monkeypatch, entry="first", dist="thirdparty"):
    """A minimal installed distribution: a module plus dist-info with the entry point `first`."""
    (tmp_path / "thirdparty_bot.py").write_text(FILE_BOT)
    info = tmp_path / f"{dist}-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.2\n")
    (info / "entry_points.txt").write_text(f"[duckcover.bots]\n{entry} = thirdparty_bot:FirstBot\n")
    monkeypatch.syspath_prepend(str(tmp_path))


def test_a_third_party_entry_point_named_like_a_builtin_bot_does_not_take_its_place(tmp_path, monkeypatch):
    install_third_party(tmp_path, monkeypatch, entry="greedy", dist="impostor")  # found before duckcover's own
    assert load_bot_class("greedy")[0] is GreedyBot
    assert plugins.registered()["greedy"].value == "duckcover_bots.greedy:GreedyBot"
    assert plugins.is_builtin("medium")


def test_a_third_party_distribution_registers_a_bot_the_same_way(tmp_path, monkeypatch):
    install_third_party(tmp_path, monkeypatch)
    cls, source = load_bot_class("first")
    assert cls.__name__ == "FirstBot"
    assert source == "entry point first = thirdparty_bot:FirstBot (thirdparty 1.2)"
    listed = {info.name: info for info in available_bots()}
    assert listed["first"].description == "Always the first legal move."
    assert "thirdparty 1.2" in listed["first"].source


@pytest.mark.keys  # bot processes: the slow tier
def test_only_the_bots_that_came_with_duckcover_run_in_the_games_process(tmp_path, monkeypatch, bot_file):
    from duckcover.players.harness import play_game
    from duckcover.players.plugins import is_builtin, is_installed
    from duckcover.players.safety import Referee
    from duckcover.players.sandbox import seat_bot
    from duckcover.players.sandbox import BotProcess

    install_third_party(tmp_path, monkeypatch)
    assert is_builtin("greedy") and is_builtin("hard") and not is_builtin("first")
    assert is_installed("first") and is_installed("easy") and not is_installed(bot_file)
    assert not is_installed("duckcover_bots.greedy:GreedyBot")  # a module path is not a name
    assert isinstance(seat_bot("medium"), GreedyBot)
    assert isinstance(seat_bot("first", trusted=True), Bot)
    third_party = seat_bot("first")
    assert isinstance(third_party, BotProcess)
    referee = Referee([third_party, seat_bot("random")])
    game = play_game(referee.bots, seed=2, referee=referee)  # it plays from its own process
    assert game.over and not referee.fallbacks and third_party.info["name"] == "first"


def test_module_path_spec():
    cls, source = load_bot_class("duckcover_bots.greedy:GreedyBot")
    assert cls is GreedyBot and source == "module duckcover_bots.greedy"


def test_file_path_spec_with_and_without_the_class_name(bot_file):
    named, source = load_bot_class(f"{bot_file}:FirstBot")
    assert named.__name__ == "FirstBot" and source == f"file {bot_file.resolve()}"
    only, _ = load_bot_class(str(bot_file))  # the file defines exactly one Bot
    assert only is named  # loaded once, reused


def test_resolve_bot_applies_seed_budget_and_time_limit(bot_file):
    bot = resolve_bot(f"{bot_file}:FirstBot", seed=7, budget=50, time_limit=0.25)
    assert isinstance(bot, Bot) and bot.budget == 50 and bot.time_limit == 0.25
    assert bot.rng.random() == resolve_bot("random", seed=7).rng.random()


def test_difficulties_are_aliases_of_bot_specs():
    assert type(resolve_bot("easy")) is RandomBot
    assert type(resolve_bot("medium")) is GreedyBot
    assert DIFFICULTIES["hard"] == "expert"


def test_hard_maps_to_the_expert_once_it_is_registered():
    if "expert" not in plugins.registered():
        pytest.skip("the expert bot is not registered in this installation")
    assert load_bot_class("hard")[0] is load_bot_class("expert")[0]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "empty bot spec"),
        ("nope", "unknown bot 'nope' (known: "),
        ("no_such_module_xyz:Bot", "cannot import no_such_module_xyz: ModuleNotFoundError"),
        ("duckcover_bots.greedy", "say which class"),
        ("duckcover_bots.greedy:Nope", "has no Nope"),
        ("duckcover.engine.moves:Move", "is not a subclass of duckcover.players.bot.Bot"),
        ("duckcover.players.bot:Bot", "does not define choose(view)"),
        ("missing/dir/bot.py:X", "no such file missing/dir/bot.py"),
    ],
)
def test_bad_specs_raise_one_clear_line(spec, message):
    with pytest.raises(BotLoadError) as caught:
        load_bot_class(spec)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_broken_bot_files_are_refused(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def oops(:\n")
    with pytest.raises(BotLoadError, match="cannot load .*SyntaxError"):
        load_bot_class(str(broken))
    two = tmp_path / "two.py"
    two.write_text(FILE_BOT + FILE_BOT.replace("FirstBot", "OtherBot"))
    with pytest.raises(BotLoadError, match="defines 2 Bot classes; name one"):
        load_bot_class(str(two))
    assert load_bot_class(f"{two}:OtherBot")[0].__name__ == "OtherBot"
    with pytest.raises(BotLoadError, match="has no Third"):
        load_bot_class(f"{two}:Third")


def test_a_constructor_that_fails_is_a_load_error(tmp_path):
    path = tmp_path / "fussy.py"
    path.write_text(FILE_BOT.replace("    def choose", "    def __init__(self, **kw):\n        raise RuntimeError('no')\n\n    def choose"))
    with pytest.raises(BotLoadError, match="cannot create FirstBot: RuntimeError: no"):
        resolve_bot(str(path))


def test_a_broken_entry_point_is_listed_not_fatal(monkeypatch):
    broken = EntryPoint(name="broken", value="no_such_module_xyz:Bot", group=plugins.GROUP)
    real = plugins.registered()
    monkeypatch.setattr(plugins, "registered", lambda: {**real, "broken": broken})
    listed = {info.name: info for info in available_bots()}
    assert listed["broken"].error.startswith("ModuleNotFoundError")
    assert listed["greedy"].error is None
    with pytest.raises(BotLoadError, match="bot 'broken' .*cannot load"):
        load_bot_class("broken")


def test_bots_command_lists_every_bot_with_its_origin(capsys):
    assert main(["bots"]) == 0
    out = capsys.readouterr().out.splitlines()
    by_name = {line.split()[0]: line for line in out}
    assert "Plays a uniformly random legal move." in by_name["random"]
    assert "[entry point random = duckcover_bots.random_bot:RandomBot (duckcover " in by_name["random"]
    assert "Covers the adjacent stack" in by_name["greedy"]
    assert out[-2].startswith("difficulties: easy=random, novice=novice, casual=casual, medium=greedy, hard=expert")


def test_bots_command_json(capsys):
    import json

    assert main(["bots", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    names = [bot["name"] for bot in data["bots"]]
    assert {"random", "greedy"} <= set(names) and names == sorted(names)
    assert set(data["bots"][0]) == {"name", "description", "source", "error"}
    assert data["difficulties"] == DIFFICULTIES


@pytest.mark.keys  # the slow tier: the unknown bot is probed in a process of its own
def test_cli_refuses_a_bad_bot_spec_with_one_line(capsys):
    assert main(["arena", "--bot", "greedy", "--bot", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown bot 'nope'" in err


OLD_PATHS = ("bot", "game", "grid", "harness", "moves", "plugins", "safety", "view")


@pytest.mark.parametrize("name", OLD_PATHS)
def test_a_bot_written_for_the_old_paths_is_told_where_they_went(name):
    """The eight re-exports at the top level warn, naming the new home, and keep their names."""
    import importlib
    import sys
    import warnings

    sys.modules.pop(f"duckcover.{name}", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(f"duckcover.{name}")
    (warning,) = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert f"duckcover.{name} moved: import these names from duckcover." in str(warning.message)
    assert all(hasattr(module, exported) for exported in module.__all__)


def test_a_bot_importing_a_module_that_moved_is_told_its_new_home(tmp_path):
    old = tmp_path / "old.py"
    old.write_text("from duckcover.cards import Card\nfrom duckcover.players.safety import PassiveBot as Old\n")
    with pytest.raises(BotLoadError) as raised:
        load_bot_class(f"{old}:Old")
    assert "No module named 'duckcover.cards' (duckcover.cards moved to duckcover.engine.cards" in str(raised.value)
    assert "\n" not in str(raised.value)
