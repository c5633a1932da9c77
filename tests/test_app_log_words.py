"""The log speaks as the table looks: cards named by number and neighbour (no grid
coordinates), the player at the keyboard in the second person in every language, Repeat
explained once, no "0 more", and names shown as text."""
from __future__ import annotations

import re

import pytest

from duckcover.app.controller import TurnController
from duckcover.app.options import SeatSpec
from duckcover.app.screens.replay import build_timeline, story_lines
from duckcover.common.telling import discard_words, gift_words, idle_words, move_words
from duckcover.common import i18n
from duckcover.engine import CARDS, REPEAT, Game, Move, Rules
from duckcover.players.harness import play_game
from duckcover.saves.record import to_record
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot

COORDINATES = re.compile(r"\(-?\d+, ?-?\d+\)")


@pytest.fixture
def lang():
    def use(code):
        i18n.set_language(code)
    yield use
    i18n.set_language("en")


GRID = {(0, 0): (CARDS[0][4],), (1, 0): (CARDS[0][7],), (2, 0): (CARDS[0][11],)}


@pytest.mark.parametrize("code, line", [
    ("en", "You covered your 4 with 7"),
    ("fr", "Vous couvrez votre 4 avec 7"),
    ("de", "Du verdeckst deine 4 mit 7"),
])
def test_you_cover_in_the_second_person(lang, code, line):
    lang(code)
    you = i18n.t("seat.you")
    assert move_words(you, GRID, Move(CARDS[0][7], (0, 0)), placing=False) == line


def test_a_duck_is_told_by_the_neighbour_that_stays_not_the_cell_it_leaves():
    # 7 leaves (1, 0) for (1, 1): its only neighbour that stays is... none at (1, 0); (0, 1)/(2, 1) empty.
    grid = {(1, 0): (CARDS[0][7],), (2, 0): (CARDS[0][11],), (2, 1): (CARDS[0][5],)}
    assert move_words("Jackson", grid, Move(CARDS[0][7], (1, 1)), placing=False) == "Jackson ducked 7 beside 5"
    you = move_words("You", grid, Move(CARDS[0][7], (1, -1)), placing=False)
    assert you.startswith("You ducked 7 beside") and "outside the starting grid" in you


def test_discards_never_say_zero_more():
    assert discard_words(9, 9) == "Nobody moved: the card goes to the Discard area. 9 discarded: that ends the round."
    assert discard_words(3, 9) == "Nobody moved: the card goes to the Discard area. 3 discarded; the round ends at 9."
    assert discard_words(4, None) == "Nobody moved: the card goes to the Discard area (4 discarded)."
    for count in range(1, 10):
        assert "0 more" not in discard_words(count, 9)


@pytest.mark.parametrize("code", ["en", "fr", "de"])
def test_a_whole_game_is_told_without_coordinates_and_without_you_flips(lang, code):
    lang(code)
    you = i18n.t("seat.you")
    game = play_game([GreedyBot(), RandomBot(), GreedyBot()], rules=Rules(variants=frozenset({"low-blows"})),
                     seed=11, names=[you, "Jackson", "Gwen"])
    lines = story_lines(build_timeline(to_record(game, bots=["greedy", "random", "greedy"])))
    assert not [line for line in lines if COORDINATES.search(line)]
    assert not [line for line in lines if f"{you} flips" in line]
    assert any(line.strip().startswith(you + " ") for line in lines)  # the player's own moves are told


def test_names_in_log_lines_are_shown_as_text_never_as_terminal_codes():
    evil = "Eve\x1b[2J\n"
    lines = [move_words(evil, GRID, Move(CARDS[0][7], (0, 0)), placing=False), idle_words(evil, "Moo\x07"),
             gift_words(evil, "3", "Bob\x1b]0;x")]
    for line in lines:
        assert "\x1b" not in line and "\n" not in line and "\x07" not in line
        assert "Eve" in line


def test_a_gift_to_you_is_told_to_you(lang):
    assert gift_words("Jackson", "3", "You") == "Jackson gave 3 to you"
    lang("de")
    assert gift_words("Du", "3", "Gwen") == "Du gibst 3 an Gwen"


def test_repeat_is_explained_in_full_once_then_briefly():
    game = Game(["You", "Jackson"], Rules(), seed=1, start=False)
    game.start_round()
    game.flip(5)
    ctl = TurnController(game, [SeatSpec("You"), SeatSpec("Jackson", "medium")])
    game.play([first_legal(game, seat) for seat in range(2)])
    game.flip(REPEAT)
    first = ctl.explain_flip(1)
    again = ctl.explain_flip(1)
    assert first.startswith("Repeat: the previous call again (5)")
    assert again.startswith("Repeat: 5 again.") and "previous call" not in again


def first_legal(game, seat):
    moves = game.legal_moves(seat)
    return moves[0] if moves else None


def test_watch_mode_does_not_wait_for_other_players():
    game = Game(["Jackson", "Gwen"], Rules(), seed=1)
    watching = TurnController(game, [SeatSpec("Jackson", "medium"), SeatSpec("Gwen", "medium")])
    assert watching.waiting_prompt() == "The players are choosing..."
    playing = TurnController(game, [SeatSpec("You"), SeatSpec("Gwen", "medium")])
    assert playing.waiting_prompt() == "Waiting for the other players..."


async def test_watching_a_game_never_says_waiting_for_the_other_players(tmp_path):
    from duckcover.app import AppOptions, create_app, quick_seats

    app = create_app(AppOptions(seats=quick_seats(3, None, watch=True), seed=3, speed="slow", lang="en", watch=True,
                                data_dir=tmp_path, stats=False))
    screens = []
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(25):
            await pilot.pause(0.1)
            screens.append(app.export_screenshot())
    assert not any("Waiting for the other players" in svg for svg in screens)
    assert any("The players are choosing..." in svg.replace("&#160;", " ") for svg in screens)
