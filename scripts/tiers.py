"""The test suite's two tiers as tests/conftest.py chooses them: how many tests each holds, and
for the keys tier, what puts each test there (an app, a process, SSH, a table server, or its
own marker). Collects only; runs no test.

    .venv/bin/python scripts/tiers.py            # counts, and keys tests by reason
    .venv/bin/python scripts/tiers.py --list     # every test with its tier and reason

Last line: `fast=N keys=M`.
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


class Tiers:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str]] = []

    def pytest_collection_finish(self, session) -> None:
        import conftest  # tests/conftest.py, on sys.path once pytest has loaded it

        for item in session.items:
            if item.get_closest_marker("fast") is not None:
                self.rows.append(("fast", item.nodeid, ""))
            else:
                self.rows.append(("keys", item.nodeid, conftest.what_it_starts(item) or "its keys marker"))


def main(argv: list[str]) -> int:
    tiers = Tiers()
    status = pytest.main(["-qq", "--collect-only", "-p", "no:xdist", "-o", "addopts=", str(ROOT / "tests")],
                         plugins=[tiers])
    if status != 0:
        print("collection failed", file=sys.stderr)
        return 2
    if "--list" in argv:
        for tier, nodeid, why in tiers.rows:
            print(f"{tier}\t{nodeid}\t{why}")
    else:
        reasons = Counter(why.split(",")[0] for tier, _, why in tiers.rows if tier == "keys")
        print("keys tier, by what the tests start:")
        for why, count in reasons.most_common():
            print(f"  {count:5d}  {why}")
    counts = Counter(tier for tier, _, _ in tiers.rows)
    print(f"fast={counts['fast']} keys={counts['keys']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
