"""Golden playthroughs (tests/golden/): stored seeded games must replay to their stored output,
and the seeds must still play the same games. Rebuild deliberately with tests/golden/regenerate.py."""
import difflib
import importlib.util
from pathlib import Path

import pytest

from helpers import run_replay

GOLDEN = Path(__file__).resolve().parent / "golden"


def _regenerate_module():
    spec = importlib.util.spec_from_file_location("golden_regenerate", GOLDEN / "regenerate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REGENERATE = _regenerate_module()
CASES = sorted(REGENERATE.CASES)


def _diff(expected: str, actual: str, name: str) -> str:
    lines = difflib.unified_diff(expected.splitlines(), actual.splitlines(), f"stored {name}", "now", lineterm="", n=2)
    return "\n".join(list(lines)[:60]) + "\n(rebuild with tests/golden/regenerate.py only if intended)"


def test_golden_set_covers_2_4_7_players_and_variants():
    assert 5 <= len(CASES) <= 8
    players = {len(REGENERATE.CASES[name][0]) for name in CASES}
    variants = {v for name in CASES for v in REGENERATE.CASES[name][1]}
    assert {2, 4, 7} <= players
    assert {"low-blows", "two-flips", "surprises", "constraints"} <= variants
    for name in CASES:
        assert (GOLDEN / f"{name}.json").is_file() and (GOLDEN / f"{name}.replay.json").is_file()


@pytest.mark.parametrize("name", CASES)
def test_golden_record_replays_to_the_stored_output(name):
    path = GOLDEN / f"{name}.json"
    before = path.read_bytes()
    result = run_replay(path, "--json")
    assert result.returncode == 0 and result.stderr == ""
    expected = (GOLDEN / f"{name}.replay.json").read_text(encoding="utf-8")
    assert result.stdout == expected, _diff(expected, result.stdout, f"{name}.replay.json")
    assert path.read_bytes() == before


@pytest.mark.parametrize("name", CASES)
def test_golden_seed_still_plays_the_stored_game(name):
    record_text, replay_text = REGENERATE.build(name)
    stored = (GOLDEN / f"{name}.json").read_text(encoding="utf-8")
    assert record_text == stored, _diff(stored, record_text, f"{name}.json")
    assert replay_text == (GOLDEN / f"{name}.replay.json").read_text(encoding="utf-8")
