"""The player at the keyboard who gave no name is one player in every language (issue 19):
records and statistics store one token, each language shows its own word; records of earlier
versions (which stored "Du" or "Vous") read as the same player. And `--resume list` says when
each game was played, where it stands and the scores."""
from __future__ import annotations

import os
import re

import pytest

from duckcover.cli import build_parser
from duckcover.commands import play
from duckcover.common import i18n
from duckcover.saves import stats, storage
from duckcover.saves.record import read_players, replay, to_record
from untrusted_payloads import finished_record


@pytest.fixture(autouse=True)
def english_after():
    yield
    i18n.set_language("en")


def humans_record(human: str) -> dict:
    """A finished game whose seat 0 is a human named `human`, as an app would save it."""
    record = finished_record(["Jackson", "Gwen"])
    record["players"][0] = {"name": human}
    return record


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_default_name_is_stored_as_one_token_and_shown_in_the_language(lang):
    i18n.set_language(lang)
    word = i18n.t("seat.you")
    game = replay(humans_record(word))
    assert game.names[0] == word  # the table shows "Du" / "Vous" / "You"
    stored = to_record(game, bots=[None, "greedy"])
    assert stored["players"][0]["name"] == i18n.YOU  # ... and the record keeps the token
    assert stored["players"][1]["name"] == "Gwen"


def test_records_of_earlier_versions_read_as_the_same_player_in_todays_language():
    i18n.set_language("fr")
    for old in ("Du", "Vous", "You"):
        names, _ = read_players(humans_record(old))
        assert names[0] == "Vous"
    names, _ = read_players({"players": [{"name": "Du", "bot": "greedy"}]})
    assert names == ["Du"]  # a bot's name is its own


def test_statistics_count_one_player_for_games_saved_in_three_languages(tmp_path):
    db = tmp_path / "stats.sqlite"
    for seed, old in zip((3, 4, 5), ("Du", "Vous", "You")):
        record = finished_record(["Jackson", "Gwen"], seed=seed)
        record["players"][0] = {"name": old}
        assert stats.add_game(record, db)
    names = [p.name for p in stats.load(db)]
    assert names.count(i18n.YOU) == 1 and "Du" not in names and "Vous" not in names
    (you,) = [p for p in stats.load(db) if p.name == i18n.YOU]
    assert you.games == 3


def test_resume_list_shows_date_round_flip_and_scores(tmp_path, capsys):
    record = finished_record(["Ann", "Ben"])
    record["rounds"] = record["rounds"][:2]
    record["rounds"][1]["turns"] = record["rounds"][1]["turns"][:4]
    path = storage.save_unfinished(record, storage.new_game_path(tmp_path))
    os.utime(path, (1_700_000_000, 1_700_000_000))
    game = replay(record)
    assert play.run(build_parser().parse_args(["play", "--resume", "list", "--data-dir", str(tmp_path)])) == 0
    line = capsys.readouterr().out.splitlines()[1]
    assert re.search(r"\b2023-11-1[45] \d\d:\d\d\b", line)  # a readable date (local time)
    assert f"round 2/{game.rules.rounds()}, flip 4" in line
    assert f"Ann {game.totals[0]}, Ben {game.totals[1]}" in line
    assert path.name in line


def test_resume_list_says_which_game_cannot_be_read(tmp_path, capsys):
    record = finished_record(["Ann", "Ben"])
    record["rounds"] = []
    storage.save_unfinished(record, storage.new_game_path(tmp_path))
    assert play.run(build_parser().parse_args(["play", "--resume", "list", "--data-dir", str(tmp_path)])) == 0
    line = capsys.readouterr().out.splitlines()[1]
    assert "Ann, Ben" in line and "cannot be read" in line and "Traceback" not in line
