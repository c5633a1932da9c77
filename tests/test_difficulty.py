"""The difficulty ladder (duckcover/players/difficulty.py, bots/ladder.py): one list everywhere, the old
names kept, even measured steps, "near my rating" on the set-up screen."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Select

import duckcover
from duckcover.players import difficulty
from duckcover.players.arena import ArenaConfig, report, run
from duckcover.players.difficulty import DIFFICULTIES, LADDER, LADDER_RATINGS, nearest_level
from duckcover.players.harness import play_game
from duckcover.players.plugins import resolve_bot
from duckcover.saves import stats
from duckcover.saves.record import to_record

LOCALES = Path(duckcover.__file__).parent / "locales"


def test_the_old_names_stand_for_the_same_bots():
    assert {k: DIFFICULTIES[k] for k in ("easy", "medium", "hard")} == {
        "easy": "random", "medium": "greedy", "hard": "expert"}


def test_every_place_that_lists_difficulties_reads_the_one_list():
    from duckcover.app import bots
    from duckcover.app.screens import lobby
    from duckcover.net import table_host

    assert table_host.DIFFICULTIES == lobby.DIFFICULTIES == bots.DIFFICULTY_NAMES == tuple(DIFFICULTIES)
    assert set(LADDER) <= set(DIFFICULTIES) and set(LADDER_RATINGS) == set(LADDER)
    assert set(difficulty.LEVEL_RATINGS) == set(DIFFICULTIES)  # `easy` too: every level on one scale


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_every_difficulty_has_its_words(lang):
    words = json.loads((LOCALES / f"{lang}.json").read_text(encoding="utf-8"))
    for level in DIFFICULTIES:
        assert f"difficulty.{level}" in words and f"level.{level}" in words


def test_the_ladder_climbs_in_roughly_even_measured_steps():
    mus = [LADDER_RATINGS[level][0] for level in LADDER]
    steps = [b - a for a, b in zip(mus, mus[1:])]
    assert len(LADDER) >= 4 and all(step > 0 for step in steps)
    mean = sum(steps) / len(steps)
    assert all(abs(step - mean) <= 0.35 * mean for step in steps)


def test_nearest_level_is_the_closest_measured_rating():
    for level in LADDER:
        assert nearest_level(LADDER_RATINGS[level][0] + 0.1) == level
    assert nearest_level(-1000) == LADDER[0] and nearest_level(1000) == LADDER[-1]
    assert nearest_level(None) == "medium"


@pytest.mark.parametrize("level", ["novice", "casual"])
def test_a_ladder_bot_plays_legal_reproducible_games(level):
    games = [play_game([resolve_bot(level, seed=1), resolve_bot("greedy")], seed=5) for _ in range(2)]
    assert games[0].over and games[0].totals == games[1].totals
    assert to_record(games[0]) == to_record(games[1])


def test_each_lower_step_beats_the_one_below_on_duplicate_deals():
    config = ArenaConfig(("novice", "casual", "greedy"), deals=12, seed=3)
    novice, casual, greedy = report(config, run(config))["bots"]
    assert novice["rating"]["mu"] < casual["rating"]["mu"] < greedy["rating"]["mu"]
    assert novice["mean_score"] > casual["mean_score"] > greedy["mean_score"]  # lower totals win


@pytest.mark.keys  # the slow tier: the app's set-up screen
async def test_the_set_up_screen_shows_each_levels_rating_and_near_my_rating_picks_one(tmp_path, monkeypatch):
    from duckcover.app import AppOptions, create_app
    from duckcover.app.screens.core import SetupScreen
    from duckcover.saves.ratings import Rating, Standing

    monkeypatch.setattr(stats, "ratings", lambda db=None, use_cache=True: {
        "name:You": Standing("name:You", Rating(LADDER_RATINGS["casual"][0] + 1, 2.0))})
    app = create_app(AppOptions(speed="instant", lang="en", data_dir=tmp_path, stats=False))
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(SetupScreen())
        await pilot.pause()
        kinds = app.screen.query_one("#kind-1", Select)
        labels = {value: str(prompt) for prompt, value in kinds._options}
        mu, sigma = LADDER_RATINGS["hard"]
        assert labels["hard"] == f"Hard (expert) {mu - 3 * sigma:.1f}"
        mu, sigma = difficulty.LEVEL_RATINGS["easy"]
        assert labels["easy"] == f"Easy (random) {mu - 3 * sigma:.1f}"  # below the ladder, on its scale
        assert labels["near"] == "Near my rating"
        kinds.value = "near"
        seats, _, _ = app.screen.chosen()
        assert seats[1].bot == "casual"
