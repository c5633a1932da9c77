"""`duckcover bots FILE.py[:Class]`: says whether a bot loads and what it is, without running its
code in the command's own process."""
from __future__ import annotations

import json

import pytest

from duckcover.cli import main

pytestmark = pytest.mark.keys  # the command checks a bot in a process of its own: the slow tier

GOOD = """\
import os, sys
from duckcover.players.bot import Bot
print("import-time chatter")
os.write(1, b"\\x1b]0;title\\x07")
class Cautious(Bot):
    name = "cautious"
    description = "Covers whenever it can."
    def observe(self, view, turn):
        pass
    def choose(self, view):
        moves = view.legal_moves()
        return moves[0] if moves else None
"""


def test_a_bot_file_is_checked_in_a_process_of_its_own(tmp_path, capfd):
    path = tmp_path / "cautious.py"
    path.write_text(GOOD)
    assert main(["bots", str(path)]) == 0
    out, err = capfd.readouterr()
    assert f"{path}: loads. cautious (Cautious): Covers whenever it can." in out
    assert "hooks: observe" in out and "runs in a process of its own" in out
    assert "chatter" not in out + err and "\x1b" not in out + err  # its prints never reach the terminal
    import hashlib
    import sys

    module = "duckcover_file_bot_" + hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
    assert module not in sys.modules  # never imported here (the name plugins.py would give it)


def test_the_check_as_json(tmp_path, capfd):
    path = tmp_path / "cautious.py"
    path.write_text(GOOD)
    assert main(["bots", f"{path}:Cautious", "--json"]) == 0
    info = json.loads(capfd.readouterr().out)
    assert (info["name"], info["class"], info["hooks"], info["time_limit"]) == ("cautious", "Cautious", ["observe"], None)


def test_a_built_in_bot_is_described_too(capfd):
    assert main(["bots", "medium"]) == 0
    assert "loads. greedy (GreedyBot)" in capfd.readouterr().out


def test_a_bot_that_does_not_load_is_one_line_and_status_2(tmp_path, capfd):
    broken = tmp_path / "broken.py"
    broken.write_text("import nonexistent_module_for_this_test\n")
    for spec, words in ((str(broken), "No module named 'nonexistent_module_for_this_test'"),
                        (str(tmp_path / "missing.py"), "no such file"),
                        (f"{broken}x:Nope", "no such file")):
        assert main(["bots", spec]) == 2
        out, err = capfd.readouterr()
        assert out == "" and words in err and err.count("\n") == 1
