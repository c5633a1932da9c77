"""Small words and truths (issue 19): plurals in all three languages, "You win" rather than
"You wins", and a quit question that speaks of a saved game only when one is open."""
from __future__ import annotations

import pytest

from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.app.screens.core import QuitScreen, TitleScreen, winner_text
from duckcover.common import i18n


@pytest.fixture(autouse=True)
def english_after():
    yield
    i18n.set_language("en")


@pytest.mark.parametrize("lang, expected", [
    ("en", {0: "0 stacks", 1: "1 stack", 2: "2 stacks", 13: "13 stacks"}),
    ("de", {0: "0 Stapel", 1: "1 Stapel", 2: "2 Stapel"}),
    ("fr", {0: "0 pile", 1: "1 pile", 2: "2 piles"}),  # French: the singular for 0 and 1
])
def test_stacks_are_counted_in_the_language(lang, expected):
    i18n.set_language(lang)
    assert {n: i18n.tn("table.stacks", n) for n in expected} == expected


@pytest.mark.parametrize("lang, one, two", [
    ("en", "Draw deck: 1 card", "Draw deck: 2 cards"),
    ("de", "Nachziehstapel: 1 Karte", "Nachziehstapel: 2 Karten"),
    ("fr", "Pioche : 1 carte", "Pioche : 2 cartes"),
])
def test_the_draw_deck_is_counted_in_the_language(lang, one, two):
    i18n.set_language(lang)
    assert (i18n.tn("table.draw", 1), i18n.tn("table.draw", 2)) == (one, two)
    assert (i18n.tn("replay.draw", 1), i18n.tn("replay.draw", 2)) == (one, two)


@pytest.mark.parametrize("lang, expected", [
    ("en", "2 humans, 1 bot"), ("de", "2 Menschen, 1 Bot"), ("fr", "2 humains, 1 robot"),
])
def test_the_lobby_counts_humans_and_bots_in_the_language(lang, expected):
    from duckcover.app.remote import LobbyScreen  # noqa: F401 - the lobby's own words
    i18n.set_language(lang)
    text = i18n.t("net.humans_bots", humans=i18n.tn("net.humans", 2), bots=i18n.tn("net.bots", 1))
    assert text == expected


def test_every_singular_form_has_its_plural_and_the_same_values():
    for lang in i18n.LANGUAGES:
        words = i18n.catalogue(lang)
        for key in words:
            if key.endswith(".one"):
                assert key[:-4] in words and "{count}" in words[key], (lang, key)


@pytest.mark.parametrize("lang, expected", [
    ("en", "You win with the lowest total"), ("de", "Du gewinnst mit der niedrigsten Summe"),
    ("fr", "Vous gagnez avec le plus petit total"),
])
def test_the_player_at_the_keyboard_wins_in_the_second_person(lang, expected):
    from duckcover.app.controller import TurnController
    from duckcover.players.harness import play_game
    from duckcover_bots.greedy import GreedyBot

    def finished(names):
        return TurnController(play_game([GreedyBot() for _ in names], seed=3, names=names), [])

    i18n.set_language(lang)
    names = ["Ann", "Jackson", "Gwen"]
    outcome = finished(names).game.outcome()
    assert outcome.decided_by == "score" and len(outcome.winners) == 1
    assert winner_text(finished(names)).startswith(names[outcome.winners[0]] + " ")  # the third person
    names[outcome.winners[0]] = i18n.t("seat.you")
    assert winner_text(finished(names)).startswith(expected)


@pytest.mark.keys  # the slow tier: the app
async def test_quitting_with_no_game_open_does_not_speak_of_a_saved_game(tmp_path):
    app = create_app(AppOptions(speed="instant", lang="en", data_dir=tmp_path, stats=False))
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, TitleScreen)
        await pilot.press("q")
        assert isinstance(app.screen, QuitScreen) and app.screen.note is None
        await pilot.press("n")
    app = create_app(AppOptions(seats=quick_seats(1, "Ann"), seed=3, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("q")
        assert isinstance(app.screen, QuitScreen) and "saved after every turn" in app.screen.note


@pytest.mark.parametrize("lang, expected", [
    ("en", ["0 discarded - 8 more end the round", "1 discarded - 7 more end the round",
            "7 discarded - 1 more ends the round"]),
    ("de", ["0 abgeworfen - noch 8 beenden die Runde", "1 abgeworfen - noch 7 beenden die Runde",
            "7 abgeworfen - noch 1 beendet die Runde"]),
    ("fr", ["0 défaussée - encore 8 et la manche finit", "1 défaussée - encore 7 et la manche finit",
            "7 défaussées - encore 1 et la manche finit"]),
])
def test_the_discard_count_agrees_with_its_numbers(lang, expected):
    from duckcover.app.table.screen import discard_count

    i18n.set_language(lang)
    assert [discard_count(n, 8) for n in (0, 1, 7)] == expected


@pytest.mark.parametrize("lang, one", [("en", "1 discarded;"), ("de", "1 abgeworfen;"), ("fr", "1 défaussée ;")])
def test_the_log_says_one_discarded_card_in_the_singular(lang, one):
    from duckcover.common.telling import discard_words

    i18n.set_language(lang)
    assert one in discard_words(1, 8)


@pytest.mark.parametrize("lang, rating, change, average", [
    ("en", "29.4", "+0.0", "7.7"), ("de", "29,4", "+0,0", "7,7"), ("fr", "29,4", "+0,0", "7,7")])
def test_ratings_and_averages_use_the_languages_decimal_sign(lang, rating, change, average):
    """One way to write a figure on every screen: the hint, the review, the ratings and the
    statistics all write 29,4 in German and French (and never -0.0)."""
    from duckcover.app.words import rating_change, rating_number

    i18n.set_language(lang)
    assert rating_number(29.4) == rating and rating_number(-0.04) == rating.replace("29", "0").replace("4", "0")
    assert rating_change(-0.04) == change and rating_change(1.25).startswith("+1")
    assert i18n.local_number(7.66, 1) == average
