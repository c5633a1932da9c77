"""The engine must run without Textual: the app sits on top of it, never inside it."""
import subprocess
import sys

ENGINE_MODULES = [
    "duckcover", "duckcover.cards", "duckcover.rules", "duckcover.grid", "duckcover.moves",
    "duckcover.game", "duckcover.view", "duckcover.record", "duckcover.bot", "duckcover.harness",
]


def test_engine_never_imports_textual():
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in ENGINE_MODULES)
        + "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        + "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"engine imported Textual: {out.stdout.strip()}"


def test_builtin_bots_install_under_a_private_name():
    import duckcover_bots

    assert duckcover_bots.__file__.replace("\\", "/").split("/")[-2] == "bots"


def test_every_package_is_packaged():
    """A wheel (not only an editable install) must carry every subpackage and its data."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    on_disk = {
        ".".join(init.parent.relative_to(root).parts)
        for init in (root / "duckcover").rglob("__init__.py")
    }
    assert on_disk <= set(config["packages"])
    assert "duckcover_bots" in config["packages"] and config["package-dir"]["duckcover_bots"] == "bots"
    styles = {p.parent.name for p in (root / "duckcover").rglob("*.tcss")}
    assert all(config["package-data"].get(f"duckcover.{name}") == ["*.tcss"] for name in styles)
