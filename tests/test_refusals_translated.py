"""The engine refuses in English with a stable code; the UI says it in the player's language.
And `replay --summary` follows --lang."""
import ast
import functools
import json
import re
from pathlib import Path

import pytest

import duckcover
from duckcover.app.controller import TurnController
from duckcover.app.options import SeatSpec
from duckcover.app.words import refusal_text
from duckcover.common.i18n import LANGUAGES, catalogue, set_language
from duckcover.engine import IllegalMoveError, Move
from helpers import STANDARD, card, new_game, run_replay

GOLDEN = Path(__file__).resolve().parent / "golden" / "g4_greedy_seed1.json"


@functools.cache  # the package's whole source parsed once a process (three tests read it)
def engine_refusals() -> dict[str, frozenset[str]]:
    """Every `Refusal(code, text, **params)` in the package's source (the engine, records,
    saved games and the server's refusals): code -> param names. (A Refusal built from a
    code held in a variable passes on one of these.)"""
    found: dict[str, set[str]] = {}
    for path in Path(duckcover.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Refusal"
                    and isinstance(node.args[0], ast.Constant)):
                params = frozenset(kw.arg for kw in node.keywords)
                assert found.setdefault(node.args[0].value, params) == params, (path.name, node.args[0].value)
    return found


def test_every_engine_refusal_has_a_text_in_every_language_with_its_values():
    refusals = engine_refusals()
    assert {"must-move", "cover-not-adjacent", "duck-not-touching", "must-quack"} <= set(refusals)
    for lang in LANGUAGES:
        texts = {k[len("refusal."):]: v for k, v in catalogue(lang).items() if k.startswith("refusal.")}
        plain = {code for code in texts if not code.endswith(".one")}
        assert plain - {"or"} == set(refusals), lang
        assert {code[:-len(".one")] for code in texts if code.endswith(".one")} <= plain, lang
        for code, params in refusals.items():
            assert set(re.findall(r"{(\w+)}", texts[code])) == params, (lang, code)


def refused(game, seat, move) -> IllegalMoveError:
    with pytest.raises(IllegalMoveError) as err:
        game.check(seat, move)
    return err.value


def test_a_refusal_keeps_its_english_sentence_and_carries_a_code():
    game = new_game([STANDARD] * 2)
    game.flip(5)
    err = refused(game, 0, Move(card(0, 5), (3, 2)))  # 5 is at (0, 1): (3, 2) is no neighbour
    assert str(err) == "cannot cover (3, 2): a cover goes onto an orthogonally adjacent stack"
    assert (err.code, err.params) == ("cover-not-adjacent", {"cell": "(3, 2)"})


@pytest.mark.parametrize("lang, text", [
    ("en", "cannot cover (3, 2): a cover goes onto an orthogonally adjacent stack"),
    ("de", "(3, 2) kann nicht verdeckt werden: verdeckt wird nur ein waagrecht oder senkrecht benachbarter Stapel"),
    ("fr", "impossible de couvrir (3, 2) : on couvre une pile voisine horizontalement ou verticalement"),
])
def test_the_app_says_a_refusal_in_the_players_language(lang, text):
    game = new_game([STANDARD] * 2)
    game.flip(5)
    err = refused(game, 0, Move(card(0, 5), (3, 2)))
    set_language(lang)
    assert refusal_text(err.reason) == text


def test_a_refusal_with_a_list_of_cards_joins_them_in_the_language():
    game = new_game([STANDARD] * 2)
    game.flip(5)
    game.play([Move(card(0, 5), (1, 1)), Move(card(1, 5), (0, 0))])  # seat 0 covers its 6
    game.flip(6)
    err = refused(game, 0, Move(card(0, 5), (0, 1)))
    assert err.code == "must-quack" and err.params == {"cards": ("6",)}
    set_language("de")
    assert refusal_text(err.reason) == "Karte 6 ist verdeckt: dieser Spieler muss Quak sagen"


def test_the_table_refuses_a_human_move_in_german():
    game = new_game([STANDARD] * 2)
    game.flip(5)
    ctl = TurnController(game, [SeatSpec("Anna"), SeatSpec("Ben")])
    set_language("de")
    assert ctl.refusal(0, Move(card(0, 5), (0, 1))) == (
        "Dieser Zug ist jetzt nicht erlaubt: eine aufgerufene Karte muss ziehen; sie kann nicht bleiben, wo sie ist.")


def test_a_plain_reason_is_shown_as_written():
    assert refusal_text("something the engine said") == "something the engine said"


@pytest.mark.parametrize("lang, words", [
    ("en", ["Scorepad", "Round 1", "Winner:"]),
    ("de", ["Wertungsblock", "Runde 1", "Sieg:"]),
    ("fr", ["Feuille de score", "Manche 1", "Victoire :"]),
])
def test_replay_summary_follows_lang(lang, words):
    out = run_replay(GOLDEN, "--summary", "--lang", lang)
    assert out.returncode == 0, out.stderr
    assert all(word in out.stdout for word in words), out.stdout
    if lang != "en":
        assert "Round" not in out.stdout and "Winner" not in out.stdout
    json.loads(run_replay(GOLDEN, "--json", "--lang", lang).stdout)  # --json stays the record's format
