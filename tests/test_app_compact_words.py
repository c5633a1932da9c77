"""Issue 30, finding 6: words of the compact table as a newcomer reads them. The jump key
before a one-line cell's word stands apart from it (German and French read `aducken`,
`pplonger`), and the Captain and the Captain pile have names of their own."""
from __future__ import annotations

import re

import pytest

from autoplay import step, table_of
from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.app.widgets.cards import MARKED_SIZES, empty_lines
from duckcover.app.widgets.glyphs import glyphs
from duckcover.common import i18n

DUCK_WORDS = {"en": ("duck", "duck"), "de": ("ducken", "duck."), "fr": ("plonger", "plong.")}


@pytest.fixture(autouse=True)
def english_after():
    yield
    i18n.set_language("en")


async def until_choosing(pilot):
    for _ in range(60):
        await step(pilot)
        table = table_of(pilot.app)
        if table is not None and table.chooser is not None:
            return table
    raise AssertionError("the human never had to choose")


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda size: f"{size[0]}x{size[1]}")
async def test_a_jump_key_stands_apart_from_the_cells_word(tmp_path, lang, size):
    app = create_app(AppOptions(seats=quick_seats(2, "Connie"), seed=5, speed="instant", lang=lang,
                                data_dir=tmp_path, save=False, stats=False))
    async with app.run_test(size=size) as pilot:
        table = await until_choosing(pilot)
        grid = table.query_one("#own-panel").grid
        assert grid.tags, "no jump keys on the grid"
        text = grid.as_text().plain
        words = "|".join(re.escape(word) for word in DUCK_WORDS[lang])
        assert re.search(words, text), text
        # A jump key, the cursor's `>` or a mark's `=` right before the word reads as part of it.
        assert not re.search(rf"[a-z>=]({words})", text), text


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_every_one_line_duck_cell_keeps_a_blank_on_both_sides_of_its_word(lang):
    i18n.set_language(lang)
    word, short = DUCK_WORDS[lang]
    assert (i18n.t("mark.duck"), i18n.t("mark.duck_short")) == (word, short)
    for size in MARKED_SIZES:
        if size.boxed:
            continue
        (line,) = empty_lines(size, glyphs(), label=word, short=short, marker="a")
        text = line.plain
        assert len(text) == size.width and text[0] == "a" and text[1] == " " and text[-1] == " ", (size, text)
        shown = text[1:].strip()
        assert shown == "" or shown in (word, short) or short.startswith(shown) and len(shown) >= 3, (size, text)


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda size: f"{size[0]}x{size[1]}")
async def test_the_captain_pile_is_never_called_the_captain(tmp_path, lang, size):
    """`Kapitän -` beside `Kapitän: Connie` named a player and a heap with one word."""
    from duckcover.app.table.screen import Heaps

    app = create_app(AppOptions(seats=quick_seats(2, "Connie"), seed=5, speed="instant", lang=lang,
                                data_dir=tmp_path, save=False, stats=False))
    async with app.run_test(size=size) as pilot:
        table = await until_choosing(pilot)
        captain = i18n.t("word.captain")
        assert i18n.t("table.captain_is", name="Connie") in table.status_text().plain  # the player
        heap_words = [label for label, _, _ in table.heap_faces()]
        assert captain not in heap_words
        if table.has_class("-small"):
            for width in (78, 40):  # the long form and the short one
                line = table.heaps_line(width).plain
                # The Captain's word alone as the label of the pile's top ("-" while it is empty).
                assert not re.search(rf"(^|\| ){captain}:? (-|\d)", line), line
        else:
            assert table.query_one(Heaps).faces[1][0] == i18n.t("table.pile_short")


def test_a_tall_stack_keeps_its_space_and_every_fact():
    """`B1●0x10` read as a glued word (issue 30): a grid's own cards give up the letter (its
    title and colour say the family) before the number gives up its column; splashes and
    height always stay."""
    from duckcover.app.widgets.cards import line_text
    from duckcover.engine.cards import Card

    one, twelve = Card(family=1, number=1), Card(family=1, number=12)
    assert line_text(one, 0, 10, "●", 7, home=1) == " 1●0x10"
    assert line_text(twelve, 5, 10, "●", 7, home=1) == "12●5x10"  # it was cut to B12x10: splashes lost
    assert line_text(one, 0, 2, "●", 7, home=1) == "B 1●0x2"  # room for everything: the letter stays
    for width, card, splashes in ((6, one, 0), (6, twelve, 5)):
        text = line_text(card, splashes, 2, "●", width, home=1)
        assert text.strip().endswith(f"●{splashes}x2") and text[:2].strip() == str(card.number)
