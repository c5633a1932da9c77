"""Pass-and-play: two humans and two bots at one keyboard, by keys, speed instant.

What one human chose must stay off the screen the next human sees, until the reveal.
"""
from __future__ import annotations

import pytest

from duckcover.app import AppOptions, SeatSpec, create_app
from autoplay import play_to_end, press, settle, step, table_of
from duckcover.app.passplay import pass_and_play_seats, read_sounds
from duckcover.app.screens.core import GameOverScreen
from duckcover.app.screens.handover import HandoverScreen
from duckcover.app.screens.replay import build_timeline, quack_word
from duckcover.app.table.screen import SeatPanel, TableScreen
from duckcover.common.i18n import LANGUAGES, catalogue
from duckcover.engine import Phase, Rules
from duckcover.saves.record import loads, replay
from duckcover.saves.storage import games_dir, unfinished_paths

ANN, BEN = 0, 1


def options(tmp_path, seed=3, handover=True, seats=None, rules=None, save=False):
    return AppOptions(seats=seats or pass_and_play_seats(["Ann", "Ben"], 2), seed=seed, speed="instant",
                      lang="en", data_dir=tmp_path, stats=False, save=save, handover=handover,
                      rules=rules or Rules())


def screen_text(app) -> str:
    """What the terminal shows now, line by line, as plain text (the screen's own rendering)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def shown_marks(table: TableScreen) -> dict[int, dict]:
    return {panel.grid.seat: dict(panel.grid.marks or {}) for panel in table.query(SeatPanel)}


async def until_both_humans_choose(pilot):
    """Step until Ann has chosen and the keyboard goes to Ben in the same turn."""
    app = pilot.app
    for _ in range(400):
        await settle(pilot)
        table = table_of(app)
        ctl = table.ctl
        pending = ctl.humans_to_ask()
        if table.chooser == ANN and BEN in pending and ctl.game.phase is Phase.MOVE:
            return
        await step(pilot)
    raise AssertionError("no turn where both humans had to move")


async def test_the_hand_over_hides_the_first_humans_choice_until_the_reveal(tmp_path):
    app = create_app(options(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await until_both_humans_choose(pilot)
        table = table_of(app)
        ctl, game = table.ctl, table.ctl.game
        turn_before = game.turn_number
        log_before = list(table.log_lines)
        assert table.chooser == ANN and shown_marks(table)[ANN]  # Ann sees her own legal cells

        await step(pilot)  # Ann confirms the cell under the cursor
        ann_move = ctl.chosen[ANN]
        assert ann_move is not None and game.turn_number == turn_before  # not played yet
        # The table is hidden behind a full-screen hand-over naming Ben.
        assert isinstance(app.screen, HandoverScreen)
        text = screen_text(app)
        assert "Pass to Ben" in text
        assert "stacks" not in text and "Ann (human)" not in text and "Round 1 begins" not in text

        await press(pilot, "enter")
        await settle(pilot)
        assert app.screen is table and table.chooser == BEN
        # Ben's screen: only Ben's own marks; Ann's grid as before her move; no word of her move.
        marks = shown_marks(table)
        assert marks[BEN] and all(not marks[seat] for seat in marks if seat != BEN)
        ann_panel = next(p for p in table.query(SeatPanel) if p.grid.seat == ANN)
        assert dict(ann_panel.grid.cells) == dict(ctl.views[ANN].grid.cells)
        assert ann_move.to not in ann_panel.grid.cells or ann_panel.grid.cells[ann_move.to][-1] != ann_move.card
        assert table.log_lines == log_before
        assert "Ann covered" not in screen_text(app) and "Ann ducked" not in screen_text(app)

        await step(pilot)  # Ben chooses: all moves are revealed together
        await settle(pilot)
        assert game.turn_number == turn_before + 1
        new = table.log_lines[len(log_before):]
        assert any(line.strip().startswith("Ann ") for line in new)
        assert any(line.strip().startswith("Ben ") for line in new)
        assert any(line.strip().startswith(("Gwen", "Dan", "Jackson", "Connie")) for line in new)


async def test_a_two_human_game_by_keys_to_the_end_with_hand_overs(tmp_path):
    # The flow of a whole game, not its length: the cooperative variant's two rounds (every round
    # end, the next deal and Game over are still passed through), one bot, at 80x24.
    rules = Rules(variants=frozenset({"cooperative"}))
    app = create_app(options(tmp_path, seed=3, save=True, seats=pass_and_play_seats(["Ann", "Ben"], 1), rules=rules))
    async with app.run_test(size=(80, 24)) as pilot:
        actions = await play_to_end(pilot)
        assert isinstance(app.screen, GameOverScreen)
        assert app.controller.game.phase is Phase.GAME_OVER
        assert actions.count("round-end") == rules.rounds() == 2
        handovers = actions.count("handover")
        choices = sum(a.startswith("choose-") for a in actions if a != "choose-pick")
        # Every human decision (a destination, not picking among Max ties) came after a hand-over.
        assert handovers >= choices > 0
        # Whoever is Captain flips with Space: both humans did at some point.
        assert actions.count("flip") > 0
    app.flush_saves()
    record = loads(next((games_dir(tmp_path) / "finished").glob("*.json")).read_text())
    assert [p.get("bot") for p in record["players"]] == [None, None, "medium"]
    assert replay(record).totals == app.controller.game.totals


async def test_no_handover_goes_straight_from_one_human_to_the_next(tmp_path):
    app = create_app(options(tmp_path, handover=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await until_both_humans_choose(pilot)
        table = table_of(app)
        await step(pilot)  # Ann chooses
        await settle(pilot)
        assert app.screen is table and table.chooser == BEN
        marks = shown_marks(table)
        assert marks[BEN] and all(not marks[seat] for seat in marks if seat != BEN)
        for _ in range(30):
            assert await step(pilot) != "handover"


async def test_the_captain_is_named_when_several_humans_share_the_keyboard(tmp_path):
    app = create_app(options(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = table_of(app)
        assert table.state == "await-flip"  # Ann is the first Captain
        assert "Ann is Captain: press Space to flip." in screen_text(app)


def madness_seats():
    return [SeatSpec("Ann", None, "Moo"), SeatSpec("Ben", None, "Honk"), SeatSpec("Gwen", "medium"),
            SeatSpec("Dan", "medium")]


async def test_madness_sounds_in_the_log_the_record_the_resume_and_the_replay(tmp_path):
    rules = Rules(variants=frozenset({"madness"}))
    app = create_app(options(tmp_path, seats=madness_seats(), rules=rules, handover=False, save=True))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(600):
            await step(pilot)
            log = "\n".join(table_of(app).log_lines)
            if "Ann: Moo!" in log or "Ben: Honk!" in log:
                break
        else:
            raise AssertionError("no human ever quacked")
        assert "Quack" not in log
        sounds = app.controller.record()["players"]
    # Bots get a suggestion nobody else took.
    assert [p["sound"] for p in sounds][:2] == ["Moo", "Honk"]
    bot_sounds = [p["sound"] for p in sounds][2:]
    assert len(set(bot_sounds)) == 2 and not {"Moo", "Honk"} & set(bot_sounds)

    record = loads(unfinished_paths(tmp_path)[0].read_text())
    assert read_sounds(record) == [p["sound"] for p in sounds]
    timeline = build_timeline(record)
    assert quack_word(timeline, 0, timeline.rules) == "Moo" and quack_word(timeline, 1, timeline.rules) == "Honk"

    resumed = create_app(AppOptions(resume=True, speed="instant", lang="en", data_dir=tmp_path, stats=False,
                                    save=False, handover=False))
    async with resumed.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        ctl = resumed.controller
        assert [s.sound for s in ctl.seats] == [p["sound"] for p in sounds]
        assert ctl.quack_word(ANN) == "Moo" and ctl.quack_word(BEN) == "Honk"


def test_a_record_without_sounds_keeps_the_old_defaults():
    from duckcover.app.passplay import madness_sounds, sound_of

    rules = Rules(variants=frozenset({"madness"}))
    words = madness_sounds()
    assert [sound_of([], rules, seat) for seat in range(3)] == words[:3]
    assert sound_of([None, "Moo"], Rules(), 1) == "Quack"
    assert read_sounds({"players": [{"name": "A", "sound": 5}, {"name": "B", "sound": " Moo "}]}) == [None, "Moo"]


def test_hand_over_snapshot(snap_compare, tmp_path):
    async def until_hand_over(pilot):
        for _ in range(40):
            await settle(pilot)
            if isinstance(pilot.app.screen, HandoverScreen):
                return
            await step(pilot)
        raise AssertionError("no hand-over")

    assert snap_compare(create_app(options(tmp_path)), terminal_size=(80, 24), run_before=until_hand_over)


async def test_setup_two_humans_with_madness_sounds_and_no_hand_over(tmp_path):
    from textual.widgets import Checkbox, Input, Select

    from duckcover.app.screens.core import SetupScreen

    app = create_app(AppOptions(seed=4, speed="instant", lang="en", data_dir=tmp_path, stats=False, save=False))
    async with app.run_test(size=(100, 34)) as pilot:
        app.push_screen(SetupScreen())
        await pilot.pause()
        setup = app.screen
        switch = setup.query_one("#handover", Checkbox)
        assert not switch.display  # one human: nothing to hand over
        setup.query_one("#name-0", Input).value = "Ann"
        setup.query_one("#name-1", Input).value = "Ben"
        setup.query_one("#kind-1", Select).value = "human"
        await pilot.pause()
        assert switch.display and switch.value
        assert not setup.query_one("#sound-row-0").display  # no Madness yet
        setup.query_one("#variant-madness", Checkbox).value = True
        await pilot.pause()
        rows = [setup.query_one(f"#sound-row-{seat}").display for seat in range(4)]
        assert rows == [True, True, False, False]  # humans only; bots take a free sound
        setup.query_one("#sound-0", Input).value = "  Moo "
        switch.value = False
        await pilot.pause()
        setup.action_start()
        await settle(pilot)
        ctl = app.controller
        assert [s.name for s in ctl.seats[:2]] == ["Ann", "Ben"] and ctl.humans == [0, 1]
        assert ctl.seats[0].sound == "Moo" and ctl.seats[1].sound is None
        assert ctl.quack_word(0) == "Moo" and ctl.quack_word(1) not in ("Moo", "Quack")
        assert app.options.handover is False
        assert isinstance(app.screen, TableScreen)


async def test_a_hint_for_one_human_never_reaches_the_next(tmp_path, monkeypatch):
    from duckcover.app.table import hint

    monkeypatch.setattr(hint, "BUDGET", 40)
    app = create_app(options(tmp_path))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await until_both_humans_choose(pilot)
        table = table_of(app)
        view = table.ctl.views[ANN]
        await pilot.press("t")
        expected = hint.describe(view, hint.analyse(view, table.ctl.game.seed))
        for _ in range(200):
            await pilot.pause(0.02)
            if any(n.message == expected for n in app._notifications):
                break
        else:
            raise AssertionError("no hint for Ann")
        assert expected not in table.log_lines  # pass-and-play: the shared log keeps no hint
        await step(pilot)  # Ann chooses; the hand-over clears her notice
        assert isinstance(app.screen, HandoverScreen) and not list(app._notifications)
        await press(pilot, "enter")
        await settle(pilot)
        assert table.chooser == BEN and expected not in screen_text(app)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_help_names_the_hand_over_key_in_every_language(lang):
    words = catalogue(lang)
    screen_title = words["handover.title"].split("{")[0].strip()  # "Pass to", as the screen says it
    assert screen_title in words["help.keys"]


def test_every_human_who_quacks_is_named_not_only_the_one_on_screen():
    from helpers import STANDARD, new_game, turn

    from duckcover.app.controller import TurnController
    from duckcover.common import i18n

    i18n.set_language("en")
    game = new_game([STANDARD] * 3)  # seats named Player 1-3
    turn(game, 6, {0: (6, (0, 1)), 1: (6, (0, 1)), 2: (6, (2, 1))})  # Ann's and Ben's 5 covered
    game.flip(5)
    ctl = TurnController(game, [SeatSpec("Ann"), SeatSpec("Ben"), SeatSpec("Cy", "easy")])
    ctl.open_choice()
    assert ctl.quacking_humans() == [0, 1]
    assert ctl.quack_prompt(main_seat=1) == (
        "Player 1: card covered, Quack! (automatic) Player 2: card covered, Quack! (automatic)"
    )
    alone = TurnController(game, [SeatSpec("Ann"), SeatSpec("Ben", "easy"), SeatSpec("Cy", "easy")])
    alone.open_choice()
    assert alone.quack_prompt(main_seat=0) == "Your card is covered: Quack! (automatic)"
