"""The import doors between the layers (engine, players, saves, app, command line), checked
from the source of whatever is installed.

The engine never imports Textual, nothing below the app imports the app, and the engine
imports nothing of duckcover's outside itself. An `ast` walk reads every module (function-level
imports included) of the installed `duckcover` and `duckcover_bots` packages, so the same test
guards an editable install and the wheel users get.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from importlib.metadata import distribution, entry_points
from pathlib import Path

import pytest

import duckcover
import duckcover_bots

# The engine as today's flat layout has it (the future duckcover/engine/). A new rules module
# joins this set; anything else the engine needs is a door opened the wrong way. The scorepad
# is not in it: it prints a summary in the reader's language (a face, like the app).
ENGINE = {
    "duckcover", "duckcover.engine.cards", "duckcover.engine.errors", "duckcover.engine.game", "duckcover.engine.grid",
    "duckcover.engine.legality", "duckcover.engine.moves", "duckcover.engine.rules", "duckcover.engine.variants", "duckcover.engine.view",
}
PLAYERS = {
    "duckcover.players.answers", "duckcover.players.arena", "duckcover.players.bot", "duckcover.players.difficulty", "duckcover.players.harness",
    "duckcover.players.plugins", "duckcover.players.safety", "duckcover.players.sandbox", "duckcover.players.seeding", "duckcover.players",
    "duckcover.players.table",
}
SAVES = {"duckcover.saves.paths", "duckcover.saves.record", "duckcover.saves.settings", "duckcover.saves.stats", "duckcover.saves.storage"}
# Above the app: they start it.
LAUNCHERS = ("duckcover.cli", "duckcover.__main__", "duckcover.commands")
APP = "duckcover.app"
# The engine is pure rules: no I/O machinery, no threads, no processes.
ENGINE_FORBIDDEN = {"textual", "threading", "multiprocessing", "subprocess", "asyncio", "socket", "sqlite3"}


def _modules() -> dict[str, Path]:
    """Every module of the installed packages, by dotted name."""
    found = {}
    for package in (duckcover, duckcover_bots):
        root = Path(package.__file__).parent
        for path in sorted(root.rglob("*.py")):
            parts = [package.__name__, *path.relative_to(root).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def imports_of(name: str, path: Path) -> set[str]:
    """Every module `name` imports anywhere in its body, relative imports resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            # `from . import record` imports the submodule (the package only runs first, as for
            # any submodule); a name that is not a submodule comes from the package itself.
            submodules = {f"{base}.{alias.name}" for alias in node.names} & MODULES.keys()
            out.update(submodules)
            if len(submodules) < len(node.names):
                out.add(base)
    return out


IMPORTS = {name: imports_of(name, path) for name, path in MODULES.items()}


def _violations(modules, forbidden) -> list[str]:
    return sorted(
        f"{name} imports {target}"
        for name in modules
        for target in IMPORTS[name]
        if any(_within(target, bad) for bad in forbidden)
    )


def test_the_walk_sees_every_module_and_function_level_imports():
    assert {"duckcover.engine.game", "duckcover.app.table.screen", "duckcover.commands.play", "duckcover_bots.expert"} <= set(MODULES)
    # commands/play.py starts the app from inside its function body.
    assert "duckcover.app" in IMPORTS["duckcover.commands.play"]
    assert "duckcover.engine.cards" in IMPORTS["duckcover.app.controller"]  # `from ..cards import ...`


def test_nothing_outside_the_app_imports_textual():
    outside = [m for m in MODULES if not _within(m, APP)]
    assert _violations(outside, {"textual"}) == []


def test_nothing_below_the_app_imports_the_app():
    below = [m for m in MODULES if not _within(m, APP) and not any(_within(m, up) for up in LAUNCHERS)]
    assert _violations(below, {APP}) == []


def test_only_the_command_line_imports_the_commands():
    others = [m for m in MODULES if not any(_within(m, up) for up in LAUNCHERS)]
    assert _violations(others, {"duckcover.commands", "duckcover.cli"}) == []


def test_the_engine_imports_nothing_of_duckcover_outside_itself():
    missing = ENGINE - set(MODULES)
    assert not missing, f"ENGINE names modules that do not exist: {missing}"
    leaks = sorted(
        f"{name} imports {target}: add it to ENGINE if it is rules, else the door is the wrong way round"
        for name in ENGINE
        for target in IMPORTS[name]
        if (_within(target, "duckcover") or _within(target, "duckcover_bots")) and target not in ENGINE
    )
    assert leaks == []
    assert _violations(ENGINE, ENGINE_FORBIDDEN) == []


def test_the_codec_stands_on_the_engine_alone():
    """duckcover.engine.codec is shared by players (the bot pipe), saves (the record) and net (the
    protocol), so it may import the engine and nothing else of duckcover."""
    outside = sorted(target for target in IMPORTS["duckcover.engine.codec"]
                     if _within(target, "duckcover") and target not in ENGINE)
    assert outside == []
    assert _violations(["duckcover.engine.codec"], ENGINE_FORBIDDEN) == []


def test_players_and_saves_keep_out_of_each_other():
    players = [m for m in MODULES if m in PLAYERS or _within(m, "duckcover_bots")]
    saves = [m for m in MODULES if m in SAVES]
    assert _violations(players, SAVES | {"duckcover.net"}) == []
    assert _violations(saves, PLAYERS | {"duckcover_bots", "duckcover.net"}) == []


def test_importing_everything_below_the_app_loads_no_textual():
    """The same door at run time: third-party imports are followed too."""
    below = [m for m in MODULES if not _within(m, APP) and not any(_within(m, up) for up in LAUNCHERS)]
    code = (
        "import importlib, sys\n"
        f"for m in {below!r}: importlib.import_module(m)\n"
        "print(','.join(sorted(m for m in sys.modules if m.partition('.')[0] == 'textual')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"Textual was imported: {out.stdout.strip()}"


def test_builtin_bots_install_under_a_private_name():
    """The built-in bots import as `duckcover_bots`: the project never claims the generic `bots`."""
    top_level = set(distribution("duckcover").read_text("top_level.txt").split())
    assert top_level == {"duckcover", "duckcover_bots"}
    builtins = [ep for ep in entry_points(group="duckcover.bots") if ep.dist and ep.dist.name == "duckcover"]
    assert {ep.name for ep in builtins} == {"random", "greedy", "expert", "novice", "casual"}
    assert all(ep.value.startswith("duckcover_bots.") for ep in builtins)
    # From the source tree (editable) the folder is bots/; in the wheel it is duckcover_bots/.
    assert Path(duckcover_bots.__file__).parent.name in ("bots", "duckcover_bots")


def test_every_package_is_packaged():
    """pyproject.toml names every subpackage of the source tree and its style sheets."""
    import tomllib

    root = Path(__file__).resolve().parent.parent
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    on_disk = {
        ".".join(init.parent.relative_to(root).parts)
        for init in (root / "duckcover").rglob("__init__.py")
    }
    assert on_disk <= set(config["packages"])
    assert "duckcover_bots" in config["packages"] and config["package-dir"]["duckcover_bots"] == "bots"
    styles = {".".join(p.parent.relative_to(root).parts) for p in (root / "duckcover").rglob("*.tcss")}
    assert all(config["package-data"].get(package) == ["*.tcss"] for package in styles)


def test_the_installed_package_carries_every_source_file():
    """Against a wheel (CI installs one): every module, text catalogue and style sheet made it in."""
    root = Path(__file__).resolve().parent.parent
    installed = Path(duckcover.__file__).parent
    if installed == root / "duckcover":
        pytest.skip("an editable install is the source tree; CI runs this test against the wheel")
    wanted = {"*.py", "*.json", "*.tcss"}
    for source, target in ((root / "duckcover", installed), (root / "bots", Path(duckcover_bots.__file__).parent)):
        files = {p.relative_to(source) for pattern in wanted for p in source.rglob(pattern) if "__pycache__" not in p.parts}
        missing = sorted(str(f) for f in files if not (target / f).is_file())
        assert missing == [], f"not in the installed package: {missing}"


def import_cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for root in sorted(imports):
        if root in index:
            continue
        work = [(root, iter(sorted(imports[root] & imports.keys())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, targets = work[-1]
            target = next(targets, None)
            if target is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == module:
                            break
                    if len(group) > 1:
                        cycles.append(sorted(group))
            elif target not in index:
                index[target] = low[target] = len(index)
                stack.append(target)
                on_stack.add(target)
                work.append((target, iter(sorted(imports[target] & imports.keys()))))
            elif target in on_stack:
                low[module] = min(low[module], index[target])
    return cycles


def test_the_cycle_finder_finds_a_cycle():
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_between_modules():
    """Function-level and type-checking imports count: a cycle hidden in a function is still one.
    A package's own __init__ is left out (importing a submodule runs it first anyway)."""
    packages = {"duckcover", "duckcover_bots"}
    graph = {name: targets - packages for name, targets in IMPORTS.items() if name not in packages}
    assert import_cycles(graph) == []
