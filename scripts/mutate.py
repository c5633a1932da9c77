"""Mutation testing for the rules: plant one-line rule bugs and check the engine tests catch each.

    python scripts/mutate.py [--jobs N] [--only NAME ...] [--list]

Each mutation below is one line of the engine changed the way a plausible bug would change it
(diagonal ducks allowed, a cover two cells away, Max taking 1-3 under Constraints, ...). For
each, the package is copied into a temporary directory, the line is replaced there (never in
the source tree), and the engine tests run against the copy, stopping at the first failure.
A mutation the tests catch is "caught"; one they pass with is "SURVIVED": a rule no test
pins down, so add a test until it is caught. A mutation whose line is no longer in the source
is "stale": update it with the code. The unmutated copy must pass first.

Not part of the default test run (it runs the engine tests once per mutation: minutes).
Exit status 0 when every mutation is caught, 1 otherwise. Standard library only.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
# The engine tests: rules, properties, records, views, golden playthroughs (no app, no bots' strength).
TESTS = [
    "tests/test_rules_setup.py", "tests/test_rules_calls.py", "tests/test_rules_moves.py",
    "tests/test_rules_round.py", "tests/test_rules_scoring.py", "tests/test_rules_variants.py",
    "tests/test_rules_variant_rounds.py", "tests/test_rules_examples.py", "tests/test_rules_errors.py",
    "tests/test_rules_view.py", "tests/test_golden.py", "tests/test_record_io.py", "tests/test_properties.py",
]


class Mutation(NamedTuple):
    name: str
    path: str  # relative to the repository
    line: str  # the exact source text replaced (it must occur once in the file)
    mutant: str


MUTATIONS = [
    Mutation("diagonal ducks allowed", "duckcover/engine/grid.py",
             "    for near in _NEIGHBOURS[to]:  # Duck",
             "    for near in (*_NEIGHBOURS[to], (to[0] - 1, to[1] - 1), (to[0] + 1, to[1] + 1)):  # Duck"),
    Mutation("cover by +-2", "duckcover/engine/grid.py",
             "        if origin is not None and to in _NEIGHBOURS[origin]:",
             "        if origin is not None and abs(to[0] - origin[0]) + abs(to[1] - origin[1]) <= 2:"),
    Mutation("diagonal covers allowed", "duckcover/engine/grid.py",
             "        if origin is not None and to in _NEIGHBOURS[origin]:",
             "        if origin is not None and abs(to[0] - origin[0]) <= 1 and abs(to[1] - origin[1]) <= 1:"),
    Mutation("a duck may touch only its own old cell", "duckcover/engine/grid.py",
             "        if near != origin and near in grid:",
             "        if near in grid:"),
    Mutation("Max picks 1-3 under Constraints", "duckcover/engine/variants.py",
             "    max_skips_up_to = 3  #",
             "    max_skips_up_to = 0  #"),
    Mutation("Max ignores max_by=splashes", "duckcover/engine/rules.py",
             '        ranked = range(13) if self.max_by == "number" else (0, *self.splashes)',
             "        ranked = range(13)"),
    Mutation("Repeat after a discarded card repeats it", "duckcover/engine/game.py",
             "            self._previous = None  # a Repeat after a discarded card is discarded too",
             "            pass"),
    Mutation("Repeat repeats the round's first card", "duckcover/engine/game.py",
             "        self._previous = code\n        return SINGLE_CALLS[code]",
             "        self._previous = self._previous or code\n        return SINGLE_CALLS[code]"),
    Mutation("scoring off by one", "duckcover/engine/rules.py",
             "        return sum(values)\n",
             "        return sum(values) + 1\n"),
    Mutation("a single stack scores plus", "duckcover/engine/rules.py",
             "            score = -values[0]",
             "            score = values[0]"),
    Mutation("Pressure doubles every round", "duckcover/engine/variants.py",
             "        return score * 2 if last_round else score",
             "        return score * 2"),
    Mutation("Competition scores splashes", "duckcover/engine/rules.py",
             "        scored = range(13) if self.scores_numbers else (0, *self.splashes)",
             "        scored = (0, *self.splashes)"),
    Mutation("discard limit 12 - players", "duckcover/engine/rules.py",
             "        return 11 - players if self.discards else None",
             "        return 12 - players if self.discards else None"),
    Mutation("Constraints keeps the 3s", "duckcover/engine/variants.py",
             "        return [code for code in cards if code > 3]",
             "        return [code for code in cards if code > 2]"),
    Mutation("Surprises remove one card", "duckcover/engine/variants.py",
             "    removed_unseen = 2\n",
             "    removed_unseen = 1\n"),
    Mutation("everyone quacked: the card goes to the pile", "duckcover/engine/game.py",
             "        discarded = not movers and self._discards",
             "        discarded = False"),
    Mutation("a single stack does not end the round", "duckcover/engine/game.py",
             "        if len(grid) == 1:\n            self._single = True",
             "        if len(grid) == 0:\n            self._single = True"),
    Mutation("a covered card stays callable", "duckcover/engine/game.py",
             "            del tops[below[-1]]  # covered for good",
             "            pass"),
    Mutation("tie goes to the most visible cards", "duckcover/engine/game.py",
             "    fewest = min(last_stacks[seat] for seat in tied)",
             "    fewest = max(last_stacks[seat] for seat in tied)"),
    Mutation("low blows: gifts go to the right", "duckcover/engine/game.py",
             "            self._received[(seat + 1) % self.n] = grid.pop(cell)",
             "            self._received[(seat - 1) % self.n] = grid.pop(cell)"),
    Mutation("low blows: any of the three lowest", "duckcover/engine/game.py",
             "    bar = values[1]",
             "    bar = values[min(2, len(values) - 1)]"),
    Mutation("the captain never rotates", "duckcover/engine/rules.py",
             '        return first if self.captain == "fixed" else (first + round_index) % players',
             "        return first"),
    Mutation("the reshuffle takes the discard too", "duckcover/engine/game.py",
             "        new = shuffled(sorted(self._pile),",
             "        new = shuffled(sorted(self._pile + list(self._discard)),"),
    Mutation("per-round variants: round 1's rules all game", "duckcover/engine/game.py",
             "        rules = self._round_rules = self.rules.for_round(index)",
             "        rules = self._round_rules = self.rules.for_round(0)"),
]


def copy_tree(target: Path) -> Path:
    """The package, the bots and the tests in `target`; returns the directory for PYTHONPATH."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "__snapshots__")
    for folder in ("duckcover", "bots", "tests", "docs"):  # some tests read the docs' examples
        shutil.copytree(ROOT / folder, target / folder, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, target / name)
    path = target / "path"  # `duckcover_bots` is the bots/ folder installed under another name
    path.mkdir()
    (path / "duckcover").symlink_to(target / "duckcover", target_is_directory=True)
    (path / "duckcover_bots").symlink_to(target / "bots", target_is_directory=True)
    return path


def run_tests(mutation: Mutation | None) -> tuple[str, float, str]:
    """("caught" | "SURVIVED" | "stale" | "passes" | "fails", seconds, first failure line)."""
    with tempfile.TemporaryDirectory(prefix="duckcover-mutant-") as tmp:
        target = Path(tmp)
        path = copy_tree(target)
        if mutation is not None:
            source = target / mutation.path
            text = source.read_text(encoding="utf-8")
            if text.count(mutation.line) != 1:
                return "stale", 0.0, f"{mutation.path}: the line to mutate is not there exactly once"
            source.write_text(text.replace(mutation.line, mutation.mutant), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(path), "PYTHONDONTWRITEBYTECODE": "1"}
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:randomly", *TESTS],
            cwd=target, env=env, capture_output=True, text=True,
        )
        seconds = time.perf_counter() - start
    failed = done.returncode != 0
    first = next((line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))), "")
    if mutation is None:
        return ("fails" if failed else "passes"), seconds, first or done.stdout.strip().splitlines()[-1:][0]
    return ("caught" if failed else "SURVIVED"), seconds, first


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1, help="mutants tested at once (default 1)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only the mutations whose name contains one of these")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    args = parser.parse_args()
    chosen = [m for m in MUTATIONS if not args.only or any(word in m.name for word in args.only)]
    if args.list:
        for mutation in chosen:
            print(f"{mutation.name:48} {mutation.path}")
        return 0
    status, seconds, detail = run_tests(None)
    print(f"{'unmutated':48} {status:9} {seconds:6.1f} s  {detail}")
    if status != "passes":
        print("the engine tests fail without any mutation: fix that first")
        return 1
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:  # each job is a subprocess: threads suffice
        results = pool.map(run_tests, chosen)
        outcomes = []
        for mutation, (status, seconds, detail) in zip(chosen, results):
            outcomes.append(status)
            print(f"{mutation.name:48} {status:9} {seconds:6.1f} s  {detail}", flush=True)
    caught = outcomes.count("caught")
    print(f"caught {caught} of {len(outcomes)} mutations")
    print(f"mutations_caught={caught}/{len(outcomes)}")
    return 0 if caught == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
