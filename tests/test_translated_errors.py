"""What a player can read is in their language (issue 19): phase refusals, set-up errors and
unreadable records carry a code the UI translates; the table's words for one thing agree."""
from __future__ import annotations

import re

import pytest

from duckcover.app.words import error_text
from duckcover.common import i18n
from duckcover.engine import Game, IllegalMoveError, Rules, RulesError
from duckcover.saves import storage
from duckcover.saves.record import RecordError


@pytest.fixture(autouse=True)
def english_after():
    yield
    i18n.set_language("en")


def raised(kind, action):
    with pytest.raises(kind) as err:
        action()
    return err.value


@pytest.mark.parametrize("lang, flip, move", [
    ("en", "cannot flip now", "nobody moves now"),
    ("de", "Aufdecken geht jetzt nicht", "Jetzt zieht niemand"),
    ("fr", "impossible de retourner une carte maintenant", "personne ne joue maintenant"),
])
def test_phase_refusals_are_said_in_the_language(lang, flip, move):
    game = Game(["a", "b"], Rules(), 1)
    game.flip()
    flip_err = raised(IllegalMoveError, game.flip)
    assert str(flip_err).startswith("cannot flip now: the game is in the")  # records and logs: English
    game2 = Game(["a", "b"], Rules(), 1)
    move_err = raised(IllegalMoveError, lambda: game2.play([None, None]))
    i18n.set_language(lang)
    assert error_text(flip_err) == flip and error_text(move_err) == move


@pytest.mark.parametrize("lang, words", [
    ("de", ("Tiefschläge", "Zwei Karten", "gehen nicht zusammen")),
    ("fr", ("Coups bas", "Deux cartes", "ne vont pas ensemble")),
])
def test_set_up_errors_are_said_in_the_language(lang, words):
    combined = raised(RulesError, lambda: Rules(variants=frozenset({"low-blows", "two-flips"})))
    rounds = raised(RulesError, lambda: Rules(variants=frozenset({"competition"}),
                                             variant_rounds={"competition": (9,)}))
    players = raised(RulesError, lambda: Rules().check_players(12))
    i18n.set_language(lang)
    assert all(word in error_text(combined) for word in words)
    text = error_text(rounds)
    assert ("Wettkampf" if lang == "de" else "Compétition") in text and "3" in text and "rounds" not in text
    assert "12" in error_text(players) and "players" not in error_text(players)


@pytest.mark.parametrize("lang, expected", [
    ("en", r"broken\.json: not JSON \(line 1, column \d+\)"),
    ("de", r"broken\.json: kein JSON \(Zeile 1, Spalte \d+\)"),
    ("fr", r"broken\.json: pas du JSON \(ligne 1, colonne \d+\)"),
])
def test_an_unreadable_record_is_said_in_the_language(tmp_path, lang, expected):
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    err = raised(RecordError, lambda: storage.load(path))
    assert str(err).startswith("broken.json: not JSON")  # the English line stays for logs
    i18n.set_language(lang)
    assert re.fullmatch(expected, error_text(err)), error_text(err)


@pytest.mark.keys  # the slow tier: the app
async def test_a_resume_that_fails_says_why_in_german(tmp_path):
    from duckcover.app import AppOptions, create_app

    path = storage.new_game_path(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"format": "something else"}')
    i18n.set_language("de")
    app = create_app(AppOptions(resume=True, resume_path=path, speed="instant", lang="de", data_dir=tmp_path,
                                stats=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        said = " ".join(n.message for n in app._notifications)
        assert "kein duckcover-Spielprotokoll" in said and "format must be" not in said


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_one_thing_one_word_at_the_table(lang):
    words = i18n.catalogue(lang)
    # The cells' words are the prompt's words for the same choice.
    for mark in ("mark.cover", "mark.duck"):
        assert re.search(rf"\b{words[mark]}\b", words["prompt.move"], re.IGNORECASE), (mark, words["prompt.move"])
    # The Captain pile's label is not the word for a player's stacks.
    stack_word = words["table.stacks"].replace("{count}", "").strip().lower()
    assert words["table.pile_short"].lower() != stack_word.rstrip("s")
    assert words["table.short"].split("|")[1].replace("{pile}", "").strip().lower() != stack_word.rstrip("s")  # "Pile 11"
