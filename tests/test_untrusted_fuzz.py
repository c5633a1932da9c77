"""Issue 10, fuzzing: mutated records fed to `replay --summary`, `replay --json`, `stats --add` and
Resume. Each either gives one line on stderr, exit status 2 and nothing on stdout, or is a valid
game (exit 0; Resume plays on and saves). Never a traceback, never unbounded memory."""
from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from duckcover.app.controller import TurnController
from duckcover.app.options import SeatSpec
from duckcover.cli import main
from duckcover.engine import DuckError
from duckcover.saves import storage
from duckcover.saves.record import RecordError, dumps, read_players
from untrusted_payloads import ESCAPES, MARKUPS, finished_record

BASES = [finished_record(["Ann", "Ben"], seed=3), finished_record(["Cat", "Dog", "Eve"], seed=8)]
HOSTILE = st.one_of(
    st.sampled_from(ESCAPES + MARKUPS + ["Jos\udce9", "x" * 100_000, "max", "repeat", "12", "madness"]),
    st.sampled_from([2**63, 2**64, -1, 0, 7, 13, 10**30, 1.5, float("nan"), True, None]),
    st.sampled_from([[], {}, [[[[[]]]]], [0] * 12, [None], {"card": 3, "to": [9, 9]}, {"to": "x"}]),
    st.text(max_size=20),
    st.integers(),
)
MEMORY_LIMIT = 200 * 1024 * 1024
EXAMPLES = int(os.environ.get("DUCKCOVER_FUZZ_EXAMPLES", "60"))  # modest here; raise it to hunt


def paths(value, prefix=()):
    """Every place in a record a mutation may hit."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, prefix + (index,))


def mutate(record: dict, data) -> dict:
    record = json.loads(json.dumps(record))
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        where = data.draw(st.sampled_from([p for p in paths(record) if p]), label="where")
        parent = record
        for key in where[:-1]:
            parent = parent[key]
        kind = data.draw(st.sampled_from(["replace", "delete", "duplicate", "truncate"]), label="kind")
        key = where[-1]
        if kind == "replace":
            parent[key] = data.draw(HOSTILE, label="value")
        elif kind == "delete":
            del parent[key]
        elif kind == "duplicate" and isinstance(parent, list):
            parent.insert(key, parent[key])
        elif kind == "truncate" and isinstance(parent[key], list):
            del parent[key][data.draw(st.integers(0, max(len(parent[key]) - 1, 0)), label="cut"):]
    return record


def run_cli(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def check_outcome(code: int, out: str, err: str, what: str) -> None:
    assert "Traceback" not in out + err, what
    if code == 0:
        assert err == "" and out, what
    else:
        assert code == 2 and out == "", (what, code, out[:200])
        assert len(err.splitlines()) == 1 and len(err) < 800, (what, err[:800])
        assert "\x1b" not in err, what


def resume(path: Path) -> None:
    """What Resume does with a saved game: read, replay, seat, and save it back."""
    try:
        record = storage.load(path)
        game = storage.resume(record)
    except (RecordError, DuckError):
        return
    names, bots = read_players(record)
    ctl = TurnController(game, [SeatSpec(name, bot) for name, bot in zip(names, bots)])
    saved = dumps(ctl.record())
    assert "\x1b" not in saved
    json.loads(saved)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(BASES), data=st.data(), text_cut=st.none() | st.integers(0, 4000))
def test_mutated_records_are_one_line_or_a_valid_game(base, data, text_cut):
    record = mutate(base, data)
    text = json.dumps(record) if text_cut is None else json.dumps(record)[:text_cut]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.json"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        tracemalloc.start()
        try:
            for args in (("replay", str(path), "--summary"), ("replay", str(path), "--json"),
                         ("stats", "--db", str(Path(folder) / "s.db"), "--add", str(path))):
                check_outcome(*run_cli(*args), what=" ".join(args[:2]))
            resume(path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < MEMORY_LIMIT


@pytest.mark.keys  # the slow tier: the app, resuming mutated saves
@settings(max_examples=max(EXAMPLES // 10, 4), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(base=st.sampled_from(BASES), data=st.data())
async def test_resume_in_the_app_plays_on_or_says_why(base, data):
    """The app's own Resume on a mutated save: the table of a valid game (or its round end), or
    the title screen and a message; the app never ends on an error."""
    from duckcover.app import AppOptions, create_app
    from duckcover.app.screens.core import GameOverScreen, RoundEndScreen, TitleScreen
    from duckcover.app.table.screen import TableScreen

    record = mutate(base, data)
    if isinstance(record.get("rounds"), list) and record["rounds"]:
        record["rounds"] = record["rounds"][:1]  # a game to continue, if the record is valid
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        storage.save_unfinished(record, storage.new_game_path(root))
        app = create_app(AppOptions(resume=True, lang="en", data_dir=root, stats=False, speed="instant"))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert app.is_running
            assert isinstance(app.screen, (TableScreen, RoundEndScreen, GameOverScreen, TitleScreen))
        assert not app.return_code
