"""The review (issue 20, docs/review.md): what each decision cost, by the expert, from the seat's
own view. Golden figures, a planted blunder, free decisions, blindness to the hidden deck,
determinism, the cache, and the command line's bad input."""
from __future__ import annotations

import copy
import json
import math
import random
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from duckcover.engine.codec import encode_move as move_json
from duckcover.players import review as rv
from duckcover.players.harness import play_game
from duckcover.saves.record import dumps, read_file, read_players, replay, to_record
from duckcover_bots.random_bot import RandomBot

pytestmark = pytest.mark.keys  # the review searches with the expert at every decision: the slow tier

GOLDEN = Path(__file__).resolve().parent / "golden"
RECORD = GOLDEN / "g4_greedy_seed1.json"
# Regenerate only on purpose (a change to the expert or the review that should change figures):
#   duckcover review tests/golden/g4_greedy_seed1.json --seat all --budget 40 --jobs 1 --no-cache --json --lang en \
#       > tests/golden/g4_greedy_seed1.review.json
GOLDEN_REVIEW = GOLDEN / "g4_greedy_seed1.review.json"
SMALL = 40  # samples per move in the quick tests
COORDINATES = re.compile(r"\(-?\d+, ?-?\d+\)|-?\d+,-?\d+|\u2192")  # (4,2), 4,2 or an arrow: what no screen shows


def run_review(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "duckcover", "review", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def golden_review() -> rv.Review:
    """The golden record's review of every seat, judged once for the tests that read it."""
    return rv.review(read_file(RECORD), ["all"], budget=SMALL)


def one_seat(review: rv.Review, seat: int) -> dict:
    """A review's JSON as a review of `seat` alone gives it (the same key and budget)."""
    whole = review.to_json()
    return {**whole, "seats": [whole["seats"][seat]]}


def test_golden_review_of_a_golden_record(golden_review):
    """Every figure of every seat, exactly as kept (the same record, key and budget)."""
    assert dumps(golden_review.to_json()) == GOLDEN_REVIEW.read_text(encoding="utf-8")


def test_golden_review_has_marks_and_free_moves():
    """The golden figures are not all zeros: the review tells decisions apart."""
    kept = json.loads(GOLDEN_REVIEW.read_text(encoding="utf-8"))
    decisions = [d for seat in kept["seats"] for d in seat["decisions"]]
    assert len(kept["seats"]) == 4 and len(decisions) == len(rv.points(replay(read_file(RECORD))))
    assert any(d["mark"] for d in decisions) and any(d["cost"] == 0 for d in decisions)


def planted(data: dict, point: rv.Point, move) -> dict:
    """The record up to `point`, where the seat played `move` instead (later turns dropped)."""
    out = copy.deepcopy(data)
    entry = out["rounds"][point.round_index]
    entry["turns"] = entry["turns"][: point.turn_no]
    entry["turns"][-1]["moves"][point.seat] = move_json(move, point.seat)
    out["rounds"] = out["rounds"][: point.round_index + 1]
    return out


def test_a_planted_blunder_is_marked_blunder():
    data = read_file(RECORD)
    # Seat 0's decision at round 1, turn 19 (6 legal moves, three turns before the round ends).
    point = next(p for p in rv.points(replay(data)) if (p.round_index, p.turn_no, p.seat) == (0, 19, 0))
    ranking = rv.expert().estimate(point.view, point.view.legal_moves(), key=1, budget=200, steps=200 * 200)
    worst = ranking[-1].move  # the expert ranks it last among every cover and duck
    assert worst != point.played
    record = planted(data, point, worst)
    replay(record)  # the planted record is still a legal game
    result = rv.review(record, ["0"])
    decision = next(d for d in result.seats[0].decisions if (d.round, d.flip) == (1, 19))
    assert decision.played == worst and decision.best != worst
    assert decision.mark == "blunder", decision
    assert decision.cost > rv.Z * decision.stderr


class OneMove:
    """A real view whose seat has a single legal move (a real game always offers a duck beside
    a cover, so the engine never deals this: the wrapper keeps everything else of the view)."""

    def __init__(self, view, move):
        self._view, self._move = view, move

    def __getattr__(self, name):
        return getattr(self._view, name)

    def legal_moves(self):
        return [self._move]


def test_a_single_legal_move_costs_nothing_and_is_never_marked():
    point = rv.points(replay(read_file(RECORD)))[0]

    class Refusing:
        def estimate(self, *args, **kwargs):
            raise AssertionError("nothing to choose: nothing to search")

    single = rv.Point(point.round_index, point.turn_no, point.seat, OneMove(point.view, point.played), point.played)
    decision = rv.judge(Refusing(), single, key=5)
    assert (decision.cost, decision.stderr, decision.mark, decision.legal, decision.samples) == (0.0, 0.0, None, 1, 0)
    assert decision.best == decision.played


def shuffle_unseen(data: dict, rng: random.Random) -> dict:
    """The same game with the cards nobody saw in another order: each round's undrawn deck
    (in rounds without a reshuffle, whose new decks the seed fixes)."""
    out = copy.deepcopy(data)
    for entry in out["rounds"]:
        if entry.get("reshuffles"):
            continue
        drawn = len(entry["turns"])
        tail = entry["deck"][drawn:]
        rng.shuffle(tail)
        entry["deck"] = entry["deck"][:drawn] + tail
    return out


def test_the_review_never_reads_the_hidden_deck(golden_review):
    data = read_file(RECORD)
    shuffled = shuffle_unseen(data, random.Random(3))
    assert shuffled["rounds"] != data["rounds"]
    replay(shuffled)  # still the same, legal game
    assert rv.public_key(replay(shuffled)) == rv.public_key(replay(data))
    # The cache is named by what the review reads: the same file for both (the same figures).
    assert rv.cache_path(replay(shuffled), None, SMALL) == rv.cache_path(replay(data), None, SMALL)
    assert rv.review(shuffled, ["1"], budget=SMALL).to_json() == one_seat(golden_review, 1)  # the unshuffled record's


@pytest.mark.keys  # the slow tier: worker processes
def test_the_same_review_whatever_the_split_between_processes(golden_review):
    shared = rv.review(read_file(RECORD), ["2"], budget=SMALL, jobs=2)
    assert shared.to_json() == one_seat(golden_review, 2)  # judged in one process


def test_another_key_gives_an_independent_review(golden_review):
    data = read_file(RECORD)
    default = golden_review  # seat 3's decisions under the default key, below
    other = rv.review(data, ["3"], key="another", budget=SMALL)
    again = rv.review(data, ["3"], key="another", budget=SMALL)
    assert other.to_json() == again.to_json() and other.key == "another"
    costs = lambda r, seat=0: [d.cost for d in r.seats[seat].decisions]  # noqa: E731
    assert costs(default, 3) != costs(other)


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_costs_and_marks_keep_their_promises(seed):
    """Every cost is at least 0; a mark needs a cost above its threshold and clear of its
    uncertainty; totals add up; the costliest are the costliest."""
    game = play_game([RandomBot(), RandomBot()], seed=seed)
    data = to_record(game, bots=["random", "random"])
    data["rounds"] = data["rounds"][:1]
    data["rounds"][0]["turns"] = data["rounds"][0]["turns"][:15]  # a game in progress: quick
    result = rv.review(data, ["all"], budget=8)
    thresholds = dict(rv.THRESHOLDS)
    for seat in result.seats:
        for d in seat.decisions:
            assert d.cost >= 0 and d.stderr >= 0 and math.isfinite(d.cost)
            cost, stderr = rv.shown_figure(d.cost), rv.shown_figure(d.stderr)  # marks read the figures shown
            if d.mark:
                assert cost > rv.Z * stderr and cost >= thresholds[d.mark]
            elif cost > rv.Z * stderr:
                assert cost < thresholds["inaccuracy"]
        assert math.isclose(sum(seat.round_costs()), seat.total_cost)
        top = seat.costliest()
        assert [d.cost for d in top] == sorted((d.cost for d in seat.decisions if d.cost > 0), reverse=True)[:3]


def test_humans_by_default_every_seat_when_all_are_bots():
    data = read_file(RECORD)
    assert rv.choose_seats(data, None) == [0, 1, 2, 3]
    data["players"][2].pop("bot")
    assert rv.choose_seats(data, None) == [2]
    assert rv.choose_seats(data, ["greedy 2", "3", "greedy 2"]) == [1, 3]
    with pytest.raises(rv.ReviewError):
        rv.choose_seats(data, ["7"])


def test_cancel_stops_the_review():
    cancel = threading.Event()
    seen = []

    def progress(done, total):
        seen.append(done)
        if done == 2:
            cancel.set()

    with pytest.raises(rv.Cancelled):
        rv.review(read_file(RECORD), ["0"], budget=SMALL, progress=progress, cancel=cancel)
    assert seen[:3] == [0, 1, 2] and len(seen) == 3


def test_the_cache_keeps_every_decision_and_gives_it_back(tmp_path):
    data = read_file(RECORD)
    game = replay(data)
    path = rv.cache_path(game, None, 12, folder=tmp_path)
    result = rv.review(data, ["1"], budget=12, store=path)
    assert result.reused == 0
    again = rv.review(data, ["1"], budget=12, store=path)
    assert again.reused == len(again.seats[0].decisions) and again.to_json() == result.to_json()
    assert rv.stored_review(data, game, path, budget=12, seats=["1"]).to_json() == result.to_json()
    assert rv.stored_review(data, game, path, budget=12) is None  # not every seat is judged yet
    path.write_text("{broken", encoding="utf-8")
    assert rv.read_store(path) == {}  # a broken cache is made again, never trusted


def test_a_cancelled_review_keeps_what_it_judged_and_resumes_from_there(tmp_path, monkeypatch, golden_review):
    data = read_file(RECORD)
    path = rv.cache_path(replay(data), None, SMALL, folder=tmp_path)
    cancel = threading.Event()

    def progress(done, total):
        if done == 3:
            cancel.set()

    with pytest.raises(rv.Cancelled):
        rv.review(data, ["0"], budget=SMALL, progress=progress, cancel=cancel, store=path)
    assert len(rv.read_store(path)) == 3  # kept as they were judged
    judged = []
    real = rv.judge
    monkeypatch.setattr(rv, "judge", lambda *a, **k: judged.append(1) or real(*a, **k))
    seen = []
    resumed = rv.review(data, ["0"], budget=SMALL, store=path, progress=lambda done, total: seen.append(done))
    total = len(resumed.seats[0].decisions)
    assert seen[0] == 3 and resumed.reused == 3 and len(judged) == total - 3  # from where it stopped
    assert resumed.to_json() == one_seat(golden_review, 0)  # the figures of one go


@settings(max_examples=200, deadline=None)
@given(shown_cost=st.integers(0, 40), shown_stderr=st.integers(0, 20),
       jitter=st.tuples(*[st.floats(-0.0499, 0.0499)] * 4))
def test_equal_figures_get_equal_marks(shown_cost, shown_stderr, jitter):
    """Two decisions whose cost and standard error read the same (to 0.1 point) get the same
    mark, whatever the unseen digits: "1.0±0.1" is a mistake in every game."""
    cost, stderr = shown_cost / 10, shown_stderr / 10
    first, second = max(0.0, cost + jitter[0]), max(0.0, cost + jitter[2])  # a cost is never negative
    a = rv.mark_of(first, max(0.0, stderr + jitter[1]))
    b = rv.mark_of(second, max(0.0, stderr + jitter[3]))
    assert f"{first:.1f}" == f"{second:.1f}"
    assert a == b == rv.mark_of(cost, stderr)


def test_the_marks_thresholds_are_the_documented_ones():
    assert [rv.mark_of(c, 0.1) for c in (0.4, 0.5, 0.9, 0.96, 1.0, 1.04, 1.9, 2.0)] == [
        None, "inaccuracy", "inaccuracy", "mistake", "mistake", "mistake", "mistake", "blunder"]
    assert rv.mark_of(1.0, 0.5) is None and rv.mark_of(1.0, 0.45) is None  # not clear of 2 x 0.5
    doc = (Path(__file__).resolve().parent.parent / "docs" / "review.md").read_text(encoding="utf-8")
    for name, threshold in rv.THRESHOLDS:
        assert f"| `{name}` | {threshold} |" in doc
    assert "rounded to 0.1" in doc


def test_moves_and_reasons_are_in_words_never_coordinates(golden_review):
    marked = 0
    for seat in golden_review.to_json()["seats"]:
        for d in seat["decisions"]:
            for text in (d["played_words"], d["best_words"]):
                assert text.startswith(("cover ", "duck ")) and not COORDINATES.search(text), text
            if d["mark"]:
                marked += 1
                assert d["reason"] and "\n" not in d["reason"] and not COORDINATES.search(d["reason"])
            else:
                assert d["reason"] is None
    assert marked


def test_a_duck_is_told_by_its_side_so_two_ducks_read_apart():
    from duckcover.common.telling import advice_words
    from duckcover.engine.cards import Card
    from duckcover.engine.moves import Move

    five, three = Card(0, 5), Card(0, 3)
    grid = {(0, 0): (five,), (1, 0): (three,)}
    words = {to: advice_words(grid, Move(five, to), sided=True) for to in ((1, -1), (1, 1), (2, 0))}
    assert words == {(1, -1): "duck 5 above 3", (1, 1): "duck 5 below 3", (2, 0): "duck 5 right of 3"}
    assert advice_words(grid, Move(five, (1, 0))) == "cover 3 with 5"
    assert advice_words(grid, Move(five, (2, 0))) == "duck 5 beside 3"  # the hint's words, unsided


# --- the command line --------------------------------------------------------------------------
def test_cli_json_matches_the_documented_schema(tmp_path):
    out = run_review(str(RECORD), "--seat", "greedy 2", "--budget", "12", "--jobs", "1")
    assert out.returncode == 0 and out.stderr == ""  # not a terminal: no progress bar
    doc = (Path(__file__).resolve().parent.parent / "docs" / "review.md").read_text(encoding="utf-8")
    data = json.loads(out.stdout) if out.stdout.startswith("{") else None
    assert data is None  # without --json, a report in words
    out = run_review(str(RECORD), "--seat", "1", "--budget", "12", "--jobs", "1", "--json")
    data = json.loads(out.stdout)
    fields = set(data) | {k for seat in data["seats"] for k in seat}
    fields |= {k for seat in data["seats"] for d in seat["decisions"] for k in d}
    for name in fields:
        assert f"`{name}`" in doc, f"docs/review.md does not document {name}"
    seat = data["seats"][0]
    assert seat["seat"] == 1 and seat["name"] == "greedy 2"
    assert all(d["mark"] in (None, *rv.MARKS) for d in seat["decisions"])
    assert set(seat["decisions"][0]["played"]) <= {"card", "to", "family"}
    words = {"played_words", "best_words", "reason"}  # added beside the record's notation
    assert all(words <= set(d) and not COORDINATES.search(d["played_words"]) for d in seat["decisions"])


def test_cli_keeps_the_review_in_the_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("DUCKCOVER_DATA", str(tmp_path))
    first = run_review(str(RECORD), "--seat", "0", "--budget", "12", "--json")
    kept = list((tmp_path / "reviews").glob("*.json"))
    assert len(kept) == 1
    stored = json.loads(kept[0].read_text())
    assert [{k: v for k, v in d.items() if k != "seat"} for d in stored["decisions"]] == [
        {k: v for k, v in d.items() if not k.endswith("words") and k != "reason"}
        for d in json.loads(first.stdout)["seats"][0]["decisions"]]
    stored["decisions"][0]["cost"] = 9.875  # planted: the second run must read it, not judge again
    kept[0].write_text(json.dumps(stored))
    second = json.loads(run_review(str(RECORD), "--seat", "0", "--budget", "12", "--json").stdout)
    assert second["seats"][0]["decisions"][0]["cost"] == 9.875 and second["seats"][0]["decisions"][0]["mark"] == "blunder"


def test_cli_reuses_the_review_the_app_made(tmp_path, monkeypatch):
    """One cache: the Review screen's review (every seat, of the game as the app holds it)
    answers `duckcover review FILE --seat NAME` on the file the app saved, judging nothing again."""
    from duckcover.app.screens import review as review_screen

    monkeypatch.setattr(review_screen, "BUDGET", 12)  # the app's budget, lowered as the CLI's below
    monkeypatch.setenv("DUCKCOVER_DATA", str(tmp_path))
    data = read_file(RECORD)
    game = replay(data)
    app_record = to_record(game, bots=read_players(data)[1])  # what the app's screen reviews
    path = review_screen.cache_file(game)  # where the app keeps it (the app's default data directory)
    app_review = rv.review(app_record, ["all"], budget=12, game=game, store=path)
    assert app_review.reused == 0 and path.parent == tmp_path / "reviews"
    before = path.read_bytes()
    out = run_review(str(RECORD), "--seat", "greedy 3", "--budget", "12", "--json")
    assert out.returncode == 0
    assert path.read_bytes() == before and list(path.parent.glob("*.json")) == [path]  # read, nothing added
    assert json.loads(out.stdout)["seats"][0] == app_review.to_json()["seats"][2]


def test_ctrl_c_keeps_what_the_command_judged(tmp_path, monkeypatch, capsys):
    from duckcover.cli import main

    monkeypatch.setenv("DUCKCOVER_DATA", str(tmp_path))
    judged = []
    real = rv.judge

    def judge_then_stop(*args, **kwargs):
        if len(judged) == 2:
            raise KeyboardInterrupt  # Ctrl+C during the third decision
        judged.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(rv, "judge", judge_then_stop)
    assert main(["review", str(RECORD), "--seat", "0", "--budget", "12", "--jobs", "1"]) == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "kept" in err and "Traceback" not in err
    assert len(rv.read_store(rv.cache_path(replay(read_file(RECORD)), None, 12))) == 2


def test_cli_report_names_the_seat_and_speaks_in_words(tmp_path, monkeypatch):
    monkeypatch.setenv("DUCKCOVER_DATA", str(tmp_path))
    out = run_review(str(RECORD), "--seat", "greedy 2", "--budget", "12", "--jobs", "1")
    assert out.returncode == 0 and out.stdout.startswith("greedy 2: ")
    assert not COORDINATES.search(out.stdout) and "yours" not in out.stdout
    lines = out.stdout.splitlines()
    decisions = [i for i, line in enumerate(lines) if line.startswith("  round ") and "the expert:" in line]
    assert decisions and all(re.search(r": (cover|duck) \d+ .*; the expert: (cover|duck) \d+", lines[i])
                             for i in decisions)
    for i in decisions:
        if not lines[i].endswith("(-)"):  # a mark: its reason on the next line, in one line
            assert lines[i + 1].startswith("    ") and "cheaper" in lines[i + 1]
    german = run_review(str(RECORD), "--seat", "greedy 2", "--budget", "12", "--lang", "de")
    assert "der Experte:" in german.stdout and "verdecken" in german.stdout + "ducken"


@pytest.mark.parametrize("args, words", [
    (["{record}", "--seat", "nobody"], "no seat 'nobody'"),
    (["{broken}"], "not JSON"),
    (["{record}", "--frobnicate"], "unrecognized arguments"),
    (["{record}", "--budget", "0"], "--budget: takes 1-100000"),
    (["{missing}"], "cannot read"),
])
def test_bad_input_is_one_line_and_status_2(tmp_path, args, words):
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "duckcover-record/1", "players": [', encoding="utf-8")
    paths = {"record": str(RECORD), "broken": str(broken), "missing": str(tmp_path / "none.json")}
    out = run_review(*(a.format(**paths) for a in args))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and words in out.stderr and "Traceback" not in out.stderr


def test_the_progress_bar_redraws_one_line_and_clears_it():
    import io

    from duckcover.commands.review import ProgressBar

    stream = io.StringIO()
    bar = ProgressBar(stream)
    bar(0, 4)
    bar(2, 4)
    bar.close()
    frames = stream.getvalue().split("\r")[1:]
    assert frames[0] == "review  [" + "." * 30 + "]  0/4"
    assert frames[1] == "review  [" + "#" * 15 + "." * 15 + "]  2/4"
    assert frames[2] == "\x1b[K" and "\n" not in stream.getvalue()
