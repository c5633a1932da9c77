"""The built-in bots through the public mechanism: always legal, reproducible, greedy > random,
and the example bot of docs/bots.md works as printed."""
import re
from pathlib import Path

import pytest

from duckcover.engine import VARIANTS, Rules
from duckcover.players.harness import play_game
from duckcover.players.plugins import load_bot_class, registered, resolve_bot
from duckcover.players.safety import Referee
from duckcover.saves.record import to_record

DOCS = Path(__file__).resolve().parents[1] / "docs" / "bots.md"
RULE_SETS = [Rules()] + [
    Rules(variants=frozenset({variant})) for variant in VARIANTS if variant != "artists-pack"
] + [Rules(max_by="splashes")]


def refereed(specs, rules=None, seed=0):
    bots = [resolve_bot(spec) for spec in specs]
    referee = Referee(bots, hard_limit=None)
    return play_game(bots, rules, seed=seed, referee=referee), referee


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: "+".join(sorted(r.variants)) or r.max_by)
def test_random_and_greedy_always_answer_legally(rules):
    for seed in range(2):
        game, referee = refereed(["random", "greedy", "random", "greedy"], rules, seed)
        assert game.over
        assert referee.fallbacks == [] and referee.incidents == []


def test_bots_are_reproducible_from_the_game_seed():
    first, _ = refereed(["random", "greedy", "random"], seed=5)
    second, _ = refereed(["random", "greedy", "random"], seed=5)
    assert to_record(first) == to_record(second)
    other, _ = refereed(["random", "greedy", "random"], seed=6)
    assert to_record(other) != to_record(first)


def test_the_fast_path_and_the_referee_play_the_same_game():
    bots = [resolve_bot(spec) for spec in ("greedy", "random", "random")]
    fast = play_game(bots, seed=9)
    safe, _ = refereed(["greedy", "random", "random"], seed=9)
    assert to_record(fast) == to_record(safe)


def test_greedy_scores_lower_than_random_at_the_same_table():
    diffs = []
    for seed in range(6):
        game, _ = refereed(["greedy", "random"], seed=seed)
        swapped, _ = refereed(["random", "greedy"], seed=seed)  # the same deal, seats swapped
        diffs.append(game.totals[0] - game.totals[1] + swapped.totals[1] - swapped.totals[0])
    assert sum(diffs) < 0


def test_the_expert_is_loaded_like_the_others():
    if "expert" not in registered():
        pytest.skip("the expert bot is not registered in this installation")
    cls, source = load_bot_class("expert")
    assert source.startswith("entry point expert = duckcover_bots.expert:")
    bot = resolve_bot("hard", seed=1, budget=4)
    assert isinstance(bot, cls) and bot.budget == 4


def test_the_documented_example_bot_runs_as_printed(tmp_path):
    code = re.search(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S).group(1)
    assert len(code.splitlines()) <= 25
    path = tmp_path / "cautious.py"
    path.write_text(code)
    cls, _ = load_bot_class(f"{path}:CautiousBot")
    assert cls.description
    for rules in (Rules(), Rules(variants=frozenset({"low-blows"})), Rules(variants=frozenset({"two-flips"}))):
        game, referee = refereed([f"{path}:CautiousBot", "greedy", "random"], rules, seed=3)
        assert game.over and referee.fallbacks == []
