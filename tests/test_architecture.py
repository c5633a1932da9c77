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
