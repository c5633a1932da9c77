"""The import doors between the rooms (engine, common, players, saves, net, app, command line),
checked from the source of whatever is installed.

The doors are import-linter contracts in pyproject.toml (layers, forbidden imports, no cycles),
run here by import-linter itself. An `ast` walk of every module (function-level imports
included) of the installed `duckcover` and `duckcover_bots` packages checks that no two modules
import each other, however far round, and what import-linter cannot see: what Textual loads
at run time, and that the package carries every file.
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

ROOT = Path(__file__).resolve().parent.parent
APP = "duckcover.app"
# The rooms of ../shared/ARCHITECTURE.md, top to bottom ("a | b": neither imports the other).
ROOMS = ["duckcover.__main__", "duckcover.cli", "duckcover.commands", "duckcover.app", "duckcover.net",
         "duckcover.env", "duckcover.players | duckcover.saves", "duckcover.common", "duckcover.engine"]


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


def contracts() -> dict[str, dict]:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    return {contract["id"]: contract for contract in config["contracts"]}


def lint_imports(*, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """import-linter's own command on pyproject.toml's contracts, against the importable package."""
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run([sys.executable, "-c", code, "--no-cache", str(ROOT / "pyproject.toml")],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def test_the_walk_sees_every_module_and_function_level_imports():
    assert {"duckcover.engine.game", "duckcover.app.table.screen", "duckcover.commands.play", "duckcover_bots.expert"} <= set(MODULES)
    # commands/play.py starts the app from inside its function body.
    assert "duckcover.app" in IMPORTS["duckcover.commands.play"]
    assert "duckcover.engine.cards" in IMPORTS["duckcover.app.controller"]  # `from ..engine.cards import ...`


def test_the_contracts_say_what_the_architecture_says():
    """The doors of ARCHITECTURE.md, as import-linter contracts in pyproject.toml."""
    found = contracts()
    assert found["rooms"]["type"] == "layers" and found["rooms"]["layers"] == ROOMS
    # Every exception to the layers is named, import by import (no wildcards).
    assert all("*" not in ignored for ignored in found["rooms"].get("ignore_imports", []))
    assert {"textual", "asyncssh", "sqlite3", "threading", "subprocess", "socket"} <= set(found["pure-engine"]["forbidden_modules"])
    assert found["pure-engine"]["source_modules"] == ["duckcover.engine"]
    assert "duckcover.net" in found["textual-in-the-app-only"]["source_modules"]
    assert found["no-cycles"]["type"] == "acyclic_siblings"
    assert set(found["no-cycles"]["ancestors"]) == {"duckcover", "duckcover_bots"}
    assert {"duckcover.bot", "duckcover.moves", "duckcover.game"} <= set(found["no-old-paths"]["forbidden_modules"])
    rooms = {room.strip() for layer in ROOMS for room in layer.split("|")}
    assert {name for name in MODULES if name.count(".") == 1 and (ROOT / name.replace(".", "/")).is_dir()} <= rooms


def test_the_import_contracts_are_kept():
    """Layers, forbidden imports and no cycles, checked by import-linter from the source."""
    result = lint_imports()
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert f"Contracts: {len(contracts())} kept, 0 broken." in result.stdout


def test_a_broken_door_is_reported(tmp_path):
    """The same contracts on a copy of the package in which the engine imports Textual and the
    app: import-linter must say so (the test above could not fail otherwise)."""
    import shutil

    copy = tmp_path / "site"
    for package in (duckcover, duckcover_bots):
        source = Path(package.__file__).parent
        shutil.copytree(source, copy / package.__name__, ignore=shutil.ignore_patterns("__pycache__"))
    grid = copy / "duckcover" / "engine" / "grid.py"
    grid.write_text(grid.read_text(encoding="utf-8") + "\nfrom ..app import options\nimport textual\n", encoding="utf-8")
    env = {**__import__("os").environ, "PYTHONPATH": str(copy)}
    result = lint_imports(cwd=tmp_path, env=env)
    assert result.returncode != 0
    # engine -> app closes a cycle through every room: every contract breaks but the two the
    # copy does not touch (the old re-export paths, the rl extra)
    assert f"Contracts: 2 kept, {len(contracts()) - 2} broken." in result.stdout, result.stdout[-3000:]
    words = " ".join(result.stdout.split())
    assert "duckcover itself never imports them KEPT" in words and "nothing else needs it KEPT" in words
    assert "duckcover.engine.grid -> duckcover.app.options" in result.stdout
    assert "duckcover.engine.grid -> textual" in result.stdout


# What the rules may import from outside duckcover: an allow-list, not a list of what they may
# not (a new top-level module in the engine is a decision, made here, not an accident).
ENGINE_MAY_IMPORT = {"__future__", "collections", "dataclasses", "enum", "functools", "itertools", "json", "os",
                     "pathlib", "pkgutil", "platformdirs", "random", "secrets", "types", "typing"}


def test_the_engine_imports_only_the_modules_it_is_allowed():
    found = {module.split(".")[0] for name, path in MODULES.items() if _within(name, "duckcover.engine")
             for module in imports_of(name, path) if not _within(module, "duckcover")}
    assert found <= ENGINE_MAY_IMPORT, sorted(found - ENGINE_MAY_IMPORT)


def test_importing_everything_below_the_app_loads_no_textual():
    """The same door at run time: third-party imports are followed too."""
    launchers = ("duckcover.cli", "duckcover.__main__", "duckcover.commands")
    below = [m for m in MODULES if not _within(m, APP) and not any(_within(m, up) for up in launchers)]
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
    assert {ep.name for ep in builtins} == {"random", "greedy", "expert", "novice", "casual", "master"}
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
