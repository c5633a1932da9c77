"""The app in German and French: the help screen and the table show translated words.

Plus snapshots of the table in each language (seeded, speed instant, 120x40), so a missing
translation or a layout broken by longer words shows up in review.
"""
from __future__ import annotations

import pytest

from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.common import i18n
from autoplay import settle, step, table_of
from duckcover.app.screens.core import HelpScreen
from duckcover.app.widgets.core import KeyBar


@pytest.fixture(autouse=True)
def keep_language():
    previous = i18n.language()
    yield
    i18n.set_language(previous)


def make(tmp_path, lang, seats=2):
    return create_app(AppOptions(seats=quick_seats(seats, "Connie"), seed=5, speed="instant", lang=lang,
                                 data_dir=tmp_path, save=False, stats=False))


def screen_text(app) -> str:
    """Everything the current screen shows, as plain text."""
    from textual.widgets import Static

    parts = []
    for widget in app.screen.query(Static):
        content = widget.render()
        parts.append(getattr(content, "plain", str(content)))
    return "\n".join(parts)


async def until_choosing(pilot):
    for _ in range(60):
        await step(pilot)
        if table_of(pilot.app).chooser is not None:
            return table_of(pilot.app)
    raise AssertionError("the human never had to choose")


HELP_WORDS = {
    "de": ["Kapitän", "Verdecken", "Ducken", "Quak", "Wiederholen", "Abwurfbereich", "Tipp"],
    "fr": ["Captain", "Couvrir", "Plonger", "Coin", "Bis", "Défausse", "conseil"],
}


@pytest.mark.parametrize("lang", ["de", "fr"])
async def test_the_help_screen_is_translated(tmp_path, lang):
    app = make(tmp_path, lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.push_screen(HelpScreen())
        await pilot.pause()
        text = screen_text(app)
        missing = [word for word in HELP_WORDS[lang] if word not in text]
        assert missing == []
        english = i18n.catalogue("en")
        assert english["help.rules"].split("\n")[0] not in text  # not the English rules


TABLE_WORDS = {
    "de": ["Runde 1/3", "Kapitän", "Nachziehstapel", "Tipp"],
    "fr": ["Manche 1/3", "Captain", "Pioche", "Conseil"],
}


@pytest.mark.parametrize("lang", ["de", "fr"])
async def test_the_table_is_translated(tmp_path, lang):
    app = make(tmp_path, lang)
    async with app.run_test(size=(120, 40)) as pilot:
        table = await until_choosing(pilot)
        text = screen_text(app)
        footer = str(app.screen.query_one(KeyBar).render())
        missing = [word for word in TABLE_WORDS[lang] if word not in text + footer]
        assert missing == []
        # The log speaks the language too: the first line announces the round.
        assert table.log_lines[0] == i18n.t("log.round_start", round=1)


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_table_snapshot_in_each_language(snap_compare, tmp_path, lang):
    async def choosing(pilot):
        await until_choosing(pilot)

    assert snap_compare(make(tmp_path, lang, seats=3), terminal_size=(120, 40), run_before=choosing)
