"""The hint key: the expert's two best moves for the human choosing now, from that seat's view."""
from __future__ import annotations

import re

import pytest

from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.app.table import hint
from autoplay import settle, step, table_of
from duckcover.saves.settings import Settings, save


@pytest.fixture(autouse=True)
def quick_hints(monkeypatch):
    monkeypatch.setattr(hint, "BUDGET", 40)  # a small search: the test checks the plumbing


def options(tmp_path, seed=5, lang="en"):
    return AppOptions(seats=quick_seats(2, "Connie"), seed=seed, speed="instant", lang=lang,
                      data_dir=tmp_path, save=False, stats=False)


async def until_choosing(pilot):
    for _ in range(60):
        await step(pilot)
        table = table_of(pilot.app)
        if table.chooser is not None:
            return table
    raise AssertionError("the human never had to choose")


def footer_keys(app) -> set[str]:
    return {binding.key for (_, binding, enabled, _) in app.screen.active_bindings.values() if enabled}


async def wait_for_hint(pilot, table):
    for _ in range(200):
        await pilot.pause(0.02)
        if any(line.startswith("Hint:") for line in table.log_lines):
            return next(line for line in table.log_lines if line.startswith("Hint:"))
    raise AssertionError("no hint came back")


async def test_the_hint_key_shows_the_two_best_moves_with_estimates(tmp_path):
    app = create_app(options(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        table = await until_choosing(pilot)
        view = table.ctl.views[table.chooser]
        assert "t" in footer_keys(app)
        await pilot.press("t")
        line = await wait_for_hint(pilot, table)
        assert line.count("against the others this round") == 2 and "next best:" in line
        ranking = hint.analyse(view, table.ctl.game.seed)  # the same search answers the same
        assert hint.describe(view, ranking) == line
        best = ranking[0][0]
        assert view.is_legal(best) and ranking[0][1] <= ranking[1][1]
        # The cursor waits on the suggestion: the card to pick, or where it goes.
        cursor = table.query_one("#own-panel").grid.cursor
        origin = next(cell for card, cell in view.candidates if card == best.card)
        assert cursor == (origin if table.stage == "pick" else best.to)


async def test_hints_off_hide_the_key(tmp_path):
    save(Settings(hints=False), tmp_path)
    app = create_app(options(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        table = await until_choosing(pilot)
        assert "t" not in footer_keys(app)
        await pilot.press("t")
        await settle(pilot)
        assert not any(line.startswith("Hint:") for line in table.log_lines)


async def test_the_hint_speaks_the_players_language(tmp_path):
    app = create_app(options(tmp_path, lang="de"))
    async with app.run_test(size=(120, 40)) as pilot:
        table = await until_choosing(pilot)
        await pilot.press("t")
        for _ in range(200):
            await pilot.pause(0.02)
            if any(line.startswith("Tipp:") for line in table.log_lines):
                break
        line = next(line for line in table.log_lines if line.startswith("Tipp:"))
        assert "gegenüber den anderen in dieser Runde" in line and "zweitbester Zug" in line


async def test_the_german_hint_writes_numbers_as_german_does(tmp_path):
    """Issue 30: a decimal comma, not a decimal point."""
    app = create_app(options(tmp_path, lang="de"))
    async with app.run_test(size=(80, 24)) as pilot:
        table = await until_choosing(pilot)
        await pilot.press("t")
        for _ in range(200):
            await pilot.pause(0.02)
            if any(line.startswith("Tipp:") for line in table.log_lines):
                break
        line = next(line for line in table.log_lines if line.startswith("Tipp:"))
        estimates = re.findall(r"etwa (\S+) gegenüber", line)
        assert len(estimates) == 2 and all(re.fullmatch(r"[+-]?\d+,\d", figure) for figure in estimates), line


@pytest.mark.parametrize("lang, value, signed, written", [
    ("de", 1.84, True, "+1,8"), ("fr", -0.44, True, "-0,4"), ("en", 2.06, True, "+2.1"),
    ("de", -0.04, True, "0,0"), ("en", 0, True, "0"), ("fr", -3, True, "-3"), ("de", 12.5, False, "12,5"),
])
def test_numbers_are_written_as_the_language_writes_them_and_zero_has_no_sign(lang, value, signed, written):
    from duckcover.common.i18n import local_number, set_language

    set_language(lang)
    assert local_number(value, 1 if isinstance(value, float) else 0, signed=signed) == written


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda size: f"{size[0]}x{size[1]}")
async def test_the_hint_notice_never_covers_your_own_grid(tmp_path, size):
    """Issue 30: at 80x24 Textual's notice, bottom right and half the screen wide, hid part of
    your grid for its eight seconds. It stands over the side column (the log) instead."""
    from textual.widgets._toast import Toast

    app = create_app(options(tmp_path))
    async with app.run_test(size=size, notifications=True) as pilot:
        table = await until_choosing(pilot)
        await pilot.press("t")
        await wait_for_hint(pilot, table)
        await settle(pilot)
        await pilot.pause()
        notices = list(app.screen.query(Toast))
        own = table.query_one("#own-panel")
        assert notices and all(notice.region.height for notice in notices)
        assert [notice.region for notice in notices if notice.region.overlaps(own.region)] == []
        assert all(notice.region.right <= size[0] and notice.region.bottom < size[1] for notice in notices)  # not on the keys


def test_the_expert_analysis_ranks_what_it_would_play():
    from duckcover.engine import Game, Phase
    from duckcover_bots.expert import ExpertBot

    game = Game(3, seed=4)
    while game.phase is not Phase.MOVE:
        game.flip()
    view = game.view(game.awaiting[0])
    ranking = ExpertBot(seed=7).analyse(view, budget=60)
    estimates = [value for _, value in ranking]
    assert len(ranking) >= 2 and all(view.is_legal(move) for move, _ in ranking)
    assert ExpertBot(seed=7, budget=60).choose(view) == ranking[0][0]  # the same search as `choose`
    assert len({move for move, _ in ranking}) == len(ranking)  # every shortlisted move once
    # The last halving's survivors (most samples) come first, best first.
    assert estimates[0] <= estimates[1]


async def test_the_hint_reads_only_the_choosing_seats_own_view(tmp_path, monkeypatch):
    from duckcover_bots.expert import ExpertBot

    from duckcover.engine import PlayerView

    seen = []
    real = ExpertBot.analyse

    def spy(self, view, budget=None):
        seen.append(view)
        return real(self, view, budget)

    monkeypatch.setattr(ExpertBot, "analyse", spy)
    app = create_app(options(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        table = await until_choosing(pilot)
        await pilot.press("t")
        await wait_for_hint(pilot, table)
        (view,) = seen
        assert isinstance(view, PlayerView) and view is table.ctl.views[table.chooser]
        assert view.seat == table.chooser and table.ctl.is_human(view.seat)


def test_gifts_and_placements_get_the_quick_rule_without_an_estimate():
    from duckcover_bots.expert import ExpertBot

    from duckcover.engine import Game, Phase
    from duckcover.engine.rules import LOW_BLOWS, Rules

    game = Game(3, Rules(variants=frozenset({LOW_BLOWS})), seed=2)
    for _ in range(200):
        if game.phase is Phase.GIFT:
            break
        if game.phase is Phase.FLIP:
            game.flip()
        else:
            game.play([game.legal_moves(s)[0] if s in game.awaiting else None for s in range(game.n)])
    assert game.phase is Phase.GIFT
    view = game.view(game.awaiting[0])
    (move, estimate), = ExpertBot(seed=1).analyse(view)
    assert view.is_legal(move) and estimate != estimate  # NaN: a rule, not a search
    assert hint.describe(view, [(move, estimate)]) == f"Hint: give {move.card.number} (a quick rule, no estimate)"


async def test_asking_again_repeats_the_answer_without_a_new_search(tmp_path, monkeypatch):
    calls = []
    real = hint.analyse
    monkeypatch.setattr(hint, "analyse", lambda view, seed: calls.append(view) or real(view, seed))
    app = create_app(options(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        table = await until_choosing(pilot)
        await pilot.press("t")
        first = await wait_for_hint(pilot, table)
        await pilot.press("t")
        await settle(pilot)
        hints = [line for line in table.log_lines if line.startswith("Hint:")]
        assert hints == [first, first] and len(calls) == 1


def test_snapshot_of_a_hint_at_the_table(snap_compare, tmp_path):
    async def ask(pilot):
        table = await until_choosing(pilot)
        await pilot.press("t")
        await wait_for_hint(pilot, table)
        await settle(pilot)

    assert snap_compare(create_app(options(tmp_path)), terminal_size=(120, 40), run_before=ask)
