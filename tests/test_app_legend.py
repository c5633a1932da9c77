"""Issue 30, finding 2: the card legend under a compact table states the rules' facts. Its
example card is drawn by the code that draws the cards, and its splashes come from the splash
table in force, in every language; the legend once said a 12 has 3 splashes (it has 5)."""
import re

import pytest

from autoplay import settle, table_of
from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.app.table.screen import LEGEND_CARD, LEGEND_HEIGHT, card_legend_words
from duckcover.common.i18n import set_language
from duckcover.engine.cards import packaged_splashes
from duckcover.engine.rules import Rules

# The example card and the numbers the legend says about it, in any of the three languages.
LEGEND = re.compile(r"^(?P<card>[A-I]\d+●\d+x\d+) ?: \D*(?P<family>[A-I]), \D*(?P<number>\d+), (?P<splashes>\d+) \w+, "
                    r"\D*(?P<height>\d+)$")


def legend_facts(text: str) -> dict:
    match = LEGEND.match(text)
    assert match, text
    return match.groupdict()


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_the_legend_says_what_the_splash_table_says(lang):
    set_language(lang)
    rules = Rules()
    facts = legend_facts(card_legend_words(rules.splashes, "●"))
    splashes = rules.splashes[LEGEND_CARD.number - 1]
    assert splashes == packaged_splashes()[11] == 5  # a 12 has 5 splashes (docs/rules.md)
    assert facts == {"card": f"B{LEGEND_CARD.number}●{splashes}x{LEGEND_HEIGHT}", "family": "B",
                     "number": str(LEGEND_CARD.number), "splashes": str(splashes), "height": str(LEGEND_HEIGHT)}


def test_the_legend_follows_a_players_own_splash_table():
    table = (0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 1)
    assert card_legend_words(table, "o") == "B12o1x2: family B, card 12, 1 splash, stack of 2"
    assert card_legend_words(None, "o") == "B12x2: family B, card 12 (scores 12), stack of 2"


@pytest.mark.parametrize("lang, says", [
    ("en", "B12●5x2: family B, card 12, 5 splashes, stack of 2"),
    ("de", "B12●5x2: Familie B, Karte 12, 5 Spritzer, Höhe 2"),
    ("fr", "B12●5x2 : famille B, carte 12, 5 éclaboussures, hauteur 2"),
])
async def test_the_legend_on_an_80x24_table_gives_a_12_five_splashes(tmp_path, lang, says):
    app = create_app(AppOptions(seats=quick_seats(3, "Connie"), seed=1, speed="instant", lang=lang,
                                data_dir=tmp_path, stats=False, save=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert says in str(table_of(app).prompt_display())
