"""Rebuild the golden playthroughs in this folder. Run by hand, deliberately:

    .venv/bin/python tests/golden/regenerate.py

Each case is a seeded bot game written as a record (`<name>.json`) with the output of
`duckcover replay <name>.json --json` beside it (`<name>.replay.json`). tests/test_golden.py
replays the records and plays the seeds again, so any engine change that alters play or
the replay output shows up as a diff. Regenerate only when such a change is intended, and
review `git diff tests/golden/` before committing.
"""
from __future__ import annotations

from pathlib import Path

from duckcover.engine import Rules
from duckcover.engine.cards import packaged_splashes
from duckcover.players.harness import play_game
from duckcover.saves import record
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot

HERE = Path(__file__).resolve().parent
BOTS = {"greedy": GreedyBot, "random": RandomBot}

# name -> (bot names by seat, variants, options, seed)
CASES: dict[str, tuple[list[str], tuple[str, ...], dict, int]] = {
    "g2_random_seed1": (["random", "random"], (), {}, 1),
    "g4_greedy_seed1": (["greedy"] * 4, (), {}, 1),
    "g7_mixed_splashes_fixed_seed3": (["greedy", "random"] * 3 + ["greedy"], (), {"max_by": "splashes", "captain": "fixed"}, 3),
    "g4_lowblows_seed2": (["greedy", "random", "greedy", "random"], ("low-blows",), {}, 2),
    "g3_twoflips_seed4": (["random", "greedy", "random"], ("two-flips",), {}, 4),
    "g5_surprises_constraints_seed5": (["greedy"] * 5, ("surprises", "constraints"), {}, 5),
    "g9_competition_pressure_seed6": (["random", "greedy"] * 4 + ["random"], ("competition", "pressure"), {}, 6),
}


def build(name: str) -> tuple[str, str]:
    """The record text and the replay --json text of one case, from its seed."""
    bot_names, variants, options, seed = CASES[name]
    rules = Rules(variants=frozenset(variants), splashes=packaged_splashes(), **options)
    game = play_game([BOTS[bot]() for bot in bot_names], rules, seed=seed)
    return record.dumps(record.to_record(game, bots=bot_names)), record.dumps(record.summary(game))


def main() -> None:
    for name in CASES:
        record_text, replay_text = build(name)
        (HERE / f"{name}.json").write_text(record_text, encoding="utf-8")
        (HERE / f"{name}.replay.json").write_text(replay_text, encoding="utf-8")
        print(f"wrote {name}.json and {name}.replay.json")


if __name__ == "__main__":
    main()
