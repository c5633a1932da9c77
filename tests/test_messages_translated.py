"""Every refusal a player can read, in their language (issue 19): the deeper record-field
errors (replay, --resume, the Games screen) and the server's refusals as a guest reads them
carry a code and values; the app says them in German and French, values escaped."""
from __future__ import annotations

import copy
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.app import App
from textual.widgets import DataTable, Static

from duckcover.app.options import AppOptions
from duckcover.app.remote import LobbyScreen, RemoteApp, WaitingScreen
from duckcover.app.screens.games import GamesScreen
from duckcover.app.words import coded_text, error_text, peer_refusal_text
from duckcover.common import i18n
from duckcover.common.i18n import LANGUAGES, catalogue
from duckcover.net import protocol as p
from duckcover.net.server import TableServer
from duckcover.net.sessions import Identity
from duckcover.saves import storage
from duckcover.saves.record import RecordError, replay
from helpers import STANDARD, run_replay, write_json
from serve_helpers import ProtocolClient
from test_refusals_translated import engine_refusals

NUMBERS = {"count", "players", "low", "high", "rounds", "last", "most", "length", "got", "index", "line",
           "column", "byte"}


@pytest.fixture(autouse=True)
def english_after():
    yield
    i18n.set_language("en")


def sample_values(params: set[str]) -> dict:
    """A distinct value per parameter: a number where the text counts, else a word."""
    return {name: 40 + i if name in NUMBERS else f"v{i}x" for i, name in enumerate(sorted(params))}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_code_has_a_text_in_every_language_that_formats_with_its_values(lang):
    codes = engine_refusals()
    assert {"missing-field", "round-beyond-game", "table-full", "seat-count", "no-such-table"} <= set(codes)
    i18n.set_language(lang)
    for code, params in codes.items():
        assert f"refusal.{code}" in catalogue(lang), (lang, code)
        assert not params & {"code", "text"}, code  # Refusal(code, text, **params) takes those two itself
        values = sample_values(params)
        text = coded_text(code, values)
        assert all(str(value) in text for value in values.values()), (lang, code, text)
        assert not re.search(r"{\w+}", text), (lang, code, text)
        if lang != "en":
            i18n.set_language("en")
            english = coded_text(code, values)
            i18n.set_language(lang)
            assert text != english, (lang, code)  # not left in English


@pytest.mark.parametrize("lang, one, three", [
    ("en", "a name sits at 1 unfinished table at most", "a name sits at 3 unfinished tables at most"),
    ("de", "ein Name sitzt an höchstens 1 unbeendeten Tisch", "ein Name sitzt an höchstens 3 unbeendeten Tischen"),
    ("fr", "un nom occupe au plus 1 table non terminée", "un nom occupe au plus 3 tables non terminées"),
])
def test_a_counted_refusal_agrees_with_its_number(lang, one, three):
    i18n.set_language(lang)
    assert coded_text("tables-per-name", {"count": 1}) == one
    assert coded_text("tables-per-name", {"count": 3}) == three
    assert coded_text("tables-per-name", {"count": 0}) == (one.replace("1", "0") if lang == "fr" else three.replace("3", "0"))


# --- records --------------------------------------------------------------------------------
def good_record() -> dict:
    return {"format": "duckcover-record/1", "rules": {"max_by": "number", "variants": []},
            "players": [{"name": "You"}, {"name": "Ben"}],
            "rounds": [{"captain": 0, "layouts": [copy.deepcopy(STANDARD) for _ in range(2)],
                        "turns": [{"flip": "6", "moves": [{"card": 6, "to": [0, 1]}, {"card": 6, "to": [1, 0]}]},
                                  {"flip": "13", "moves": [None, None]}]}]}


def broken(**change) -> dict:
    data = good_record()
    for path, value in change.items():
        *where, last = path.split("__")
        target = data
        for key in where:
            target = target[int(key) if key.isdigit() else key]
        target[int(last) if last.isdigit() else last] = value
    return data


def refused(data: dict) -> RecordError:
    with pytest.raises(RecordError) as err:
        replay(data)
    return err.value


@pytest.mark.parametrize("change, en, de, fr", [
    ({}, "round 1, turn 2: '13' is not a Captain card (1-12, max or repeat)",
     "Runde 1, Zug 2: '13' ist keine Kapitänskarte (1-12, max oder repeat)",
     "manche 1, tour 2 : '13' n'est pas une carte du Captain (1-12, max ou repeat)"),
    ({"rounds__0__layouts__1": [[1, 2, 3, 4]]}, "round 1, seat 1: a layout is 3 rows of 4 numbers",
     "Runde 1, Platz 1: eine Auslage hat 3 Reihen zu 4 Zahlen",
     "manche 1, place 1 : une disposition compte 3 rangées de 4 nombres"),
    ({"rounds__0__turns__0__moves": [None]}, "round 1, turn 1: moves must hold one entry per player (2), not 1",
     "Runde 1, Zug 1: moves muss einen Eintrag pro Spieler enthalten (2), nicht 1",
     "manche 1, tour 1 : moves doit contenir une entrée par joueur (2), pas 1"),
    ({"rules__max_by": "colour"}, "rules.max_by must be one of number, splashes, not 'colour'",
     "rules.max_by muss eines von number, splashes sein, nicht 'colour'",
     "rules.max_by doit être l'une des valeurs number, splashes, pas 'colour'"),
])
def test_a_broken_field_is_said_in_the_language(change, en, de, fr):
    err = refused(broken(**change))
    for lang, expected in (("en", en), ("de", de), ("fr", fr)):
        i18n.set_language(lang)
        assert error_text(err) == expected, lang


def test_a_missing_field_and_a_round_too_many_are_said_in_german():
    data = good_record()
    del data["rounds"][0]["captain"]
    missing = refused(data)
    extra = good_record()
    extra["rounds"][0]["turns"].pop()
    extra["rounds"] = [extra["rounds"][0]] * 4  # the first round has not ended either
    i18n.set_language("de")
    assert error_text(missing) == "Runde 1: fehlendes Feld: captain"
    assert error_text(refused(extra)) == "Runde 2: die vorige Runde ist nicht zu Ende"


def test_a_quoted_record_value_stays_escaped_in_every_language():
    err = refused(broken(rules__variants=["\x1b[2J[b]evil"]))
    for lang in LANGUAGES:
        i18n.set_language(lang)
        text = error_text(err)
        assert "\x1b" not in text and "evil" in text and "[b]" in text  # shown as written, never applied


@pytest.mark.parametrize("lang, words", [
    ("de", "Runde 1, Zug 2: '13' ist keine Kapitänskarte"),
    ("fr", "manche 1, tour 2 : '13' n'est pas une carte du Captain"),
])
def test_replay_says_a_broken_field_in_its_language(tmp_path, lang, words):
    path = write_json(tmp_path / "game.json", good_record())
    out = run_replay(path, "--summary", "--lang", lang)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip() == f"{path}: {words} (1-12, max {'oder' if lang == 'de' else 'ou'} repeat)"


def test_replay_in_english_keeps_the_record_formats_line(tmp_path):
    path = write_json(tmp_path / "game.json", good_record())
    out = run_replay(path, "--summary", "--lang", "en")
    assert out.returncode == 2
    assert out.stderr.strip() == f"{path}: round 1, turn 2: '13' is not a captain card (1-12, max or repeat)"


class GamesHost(App):
    def on_mount(self) -> None:
        self.push_screen(GamesScreen())


@pytest.mark.parametrize("lang, words", [
    ("de", "Runde 1, Zug 2: '13' ist keine Kapitänskarte"),
    ("fr", "manche 1, tour 2 : '13' n'est pas une carte du Captain"),
])
async def test_the_games_screen_says_a_broken_field_in_its_language(tmp_path, monkeypatch, lang, words):
    monkeypatch.setenv("DUCKCOVER_DATA", str(tmp_path))
    storage.save_unfinished(good_record(), storage.new_game_path())
    i18n.set_language(lang)
    app = GamesHost()
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        cells = " ".join(str(cell) for cell in app.screen.query_one(DataTable).get_row_at(0))
        assert f"{i18n.t('seat.you')}, Ben" in cells  # the player at the keyboard, in the language
        note = str(app.screen.query_one("#games-note", Static).render())  # the selected game's note
        assert words in note and "is not a" not in note, note


def test_resume_list_says_a_broken_field_in_french(tmp_path):
    from duckcover.commands.play import unfinished_line

    path = storage.save_unfinished(good_record(), storage.new_game_path(tmp_path))
    i18n.set_language("fr")
    assert "manche 1, tour 2 : '13' n'est pas une carte du Captain" in unfinished_line(path)


# --- the server's refusals ------------------------------------------------------------------
@pytest.fixture
async def server(tmp_path):
    srv = TableServer(tmp_path, grace=30, pace=0)
    await srv.start(tmp_path / "tables.sock")
    srv.sock = tmp_path / "tables.sock"
    yield srv
    await srv.close()


async def refusal_for(server, kind: str, name: str = "ann", **fields) -> dict:
    client = await ProtocolClient.connect(server.sock, server.issue_token(Identity(name)))
    await client.until("lobby")
    client.send(kind, **fields)
    error = await client.until("error")
    await client.close()
    return error


@pytest.mark.parametrize("kind, fields, code, de, fr", [
    ("join", {"table": "nope"}, "no-such-table", "diesen Tisch gibt es nicht", "cette table n'existe pas"),
    ("create", {"seats": ["human"] * 9}, "seat-count", "ein Tisch hat 2 bis 7 Plätze", "une table a de 2 à 7 places"),
    ("create", {"seats": ["human", "easy"], "seed": "abc"}, "seed-not-whole",
     "der Seed ist eine ganze Zahl", "la graine est un nombre entier"),
    ("create", {"seats": ["human", "easy"], "variants": ["low-blows", "two-flips"]}, "low-blows-two-flips",
     "Tiefschläge und Zwei Karten gehen nicht zusammen: beide verändern den Zug",
     "Coups bas et Deux cartes ne vont pas ensemble : tous deux redéfinissent le tour"),
    ("create", {"seats": ["human", "easy"], "options": {"max_by": "<b>"}}, "rules-option",
     "rules.max_by muss eines von number, splashes sein, nicht '<b>'",
     "rules.max_by doit être l'une des valeurs number, splashes, pas '<b>'"),
    ("flip", {}, "no-seat", "du hast keinen Platz", "vous n'avez pas de place"),
])
async def test_a_server_refusal_reaches_a_guest_with_its_code_and_is_said_in_the_language(
        server, kind, fields, code, de, fr):
    error = await refusal_for(server, kind, **fields)
    assert error["code"] == code and error["text"]  # the English text stays for older clients
    i18n.set_language("de")
    assert peer_refusal_text(error) == de
    i18n.set_language("fr")
    assert peer_refusal_text(error) == fr


async def test_a_full_table_is_refused_in_german(server):
    seated = []
    for name in ("ann", "ben"):
        client = await ProtocolClient.connect(server.sock, server.issue_token(Identity(name)))
        await client.until("lobby")
        if name == "ann":
            client.send("create", seats=["human", "human"])
        else:
            client.send("join", table=next(iter(server.tables)))
        await client.until("seated")
        seated.append(client)
    error = await refusal_for(server, "join", name="cy", table=next(iter(server.tables)))
    i18n.set_language("de")
    assert error["code"] == "table-full"
    assert peer_refusal_text(error) == "an diesem Tisch ist kein Platz frei"
    for client in seated:
        await client.close()


@pytest.mark.parametrize("lang, expected", [
    ("de", "diesen Tisch gibt es nicht"),
    ("fr", "cette table n'existe pas"),
])
async def test_a_guest_app_shows_a_server_refusal_in_its_language(server, lang, expected):
    i18n.set_language(lang)
    app = RemoteApp(AppOptions(data_dir=server.data_dir, speed="instant", lang=lang), str(server.sock),
                    server.issue_token(Identity("ann")))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        for _ in range(200):
            if isinstance(app.screen, LobbyScreen):
                break
            await pilot.pause(0.02)
        app.send(p.Join(table="nope"))
        for _ in range(200):
            if any(n.message == expected for n in app._notifications):
                break
            await pilot.pause(0.02)
        assert [n.message for n in app._notifications] == [expected]


def test_a_peers_code_or_values_that_do_not_fit_leave_its_text_escaped():
    i18n.set_language("de")
    plain = peer_refusal_text({"text": "plain\x1b[2J", "code": "no-such-code"})
    assert plain.startswith("plain") and plain.endswith("[2J") and "\x1b" not in plain
    assert peer_refusal_text({"text": "fallback", "code": "seat-count", "params": {"low": 2}}) == "fallback"
    assert peer_refusal_text({"text": "fallback", "code": "seat-count", "params": "x"}) == "fallback"
    said = peer_refusal_text({"text": "x", "code": "unknown-variant", "params": {"variant": "[b]\x07", "known": "a"}})
    assert "\x07" not in said and "[b]" in said and said.startswith("unbekannte Variante")


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(["text", "code", "params"]),
                       st.one_of(st.text(max_size=400), st.integers(), st.none(),
                                 # deferred: not parsed at collection, in every worker
                                 st.deferred(lambda: st.sampled_from(sorted(engine_refusals()))),
                                 st.dictionaries(st.text(max_size=8),
                                                 st.one_of(st.text(max_size=400), st.integers(),
                                                           st.lists(st.integers(), max_size=20)),
                                                 max_size=4))))
def test_whatever_a_peer_sends_is_said_in_one_bounded_printable_line(message):
    i18n.set_language("fr")
    said = peer_refusal_text(message)
    assert isinstance(said, str) and len(said) <= 128
    assert not any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in said)


# --- plurals --------------------------------------------------------------------------------
COUNTED = re.compile(r"{(count|games|flips)[^}]*}\s+(?!(?:of|von|sur)\b)\w")  # a counted noun follows the number


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_counted_noun_has_a_singular_form(lang):
    texts = catalogue(lang)
    counted = [key for key, text in texts.items() if not key.endswith(".one") and COUNTED.search(text)]
    assert "scorepad.ended" in counted
    assert [key for key in counted if f"{key}.one" not in texts] == [], lang


def one_turn_game():
    from duckcover.engine import Game, Rules

    game = Game(["Ann", "Ben"], Rules(), 3)
    game.flip()
    while game.awaiting:
        game.play([game.view(s).legal_moves()[0] if s in game.awaiting else None for s in range(game.n)])
    return game


@pytest.mark.parametrize("lang, one", [
    ("en", "Round 1: in progress after 1 flip."),
    ("de", "Runde 1: läuft noch, 1 Karte aufgedeckt."),
    ("fr", "Manche 1 : en cours après 1 carte retournée."),
])
def test_the_scorepad_counts_one_flip_in_the_singular(lang, one):
    from duckcover.common.scorepad import describe_end

    game = one_turn_game()
    assert game.turn_number == 1 or len(game.round.turns) == 1
    i18n.set_language(lang)
    assert describe_end(game)[0] == one


@pytest.mark.parametrize("lang, one, two", [
    ("en", "over 1 rated game", "over 2 rated games"),
    ("de", "über 1 gewertetes Spiel", "über 2 gewertete Spiele"),
    ("fr", "sur 1 partie classée", "sur 2 parties classées"),
])
def test_a_rating_over_one_game_is_said_in_the_singular(lang, one, two):
    from types import SimpleNamespace

    from duckcover.app.screens.stats import rating_chart

    i18n.set_language(lang)
    for history, words in (([25.0], one), ([25.0, 26.5], two)):
        standing = SimpleNamespace(key="name:Ann", label="Ann", history=history, change=lambda: 1.5)
        assert words in rating_chart(standing).plain.splitlines()[0]


@pytest.mark.parametrize("lang, game, decision", [
    ("en", "(1 game)", "in 1 decision ("),
    ("de", "(1 Spiel)", "in 1 Entscheidung ("),
    ("fr", "(1 partie)", "en 1 décision ("),
])
def test_the_top_ten_and_the_review_count_one_in_the_singular(lang, game, decision):
    from duckcover.common.i18n import tn

    i18n.set_language(lang)
    assert tn("net.top_line", 1, rank=1, name="Ann", ordinal="3.0").endswith(game)
    assert decision in tn("review.seat_line", 1, name="Ann", total="1.5", mean="1.50")
    assert decision.replace("1", "3").rstrip(" (") not in tn("review.seat_line", 1, name="Ann", total="1.5", mean="1.50")


@pytest.mark.parametrize("lang, syntax, unknown", [
    ("de", "'competition:x': Runden sind durch Kommas getrennte Zahlen, z. B. competition:1,3",
     "unbekannte Variante 'colour'"),
    ("fr", "'competition:x' : les manches sont des nombres séparés par des virgules, par ex. competition:1,3",
     "variante inconnue 'colour'"),
])
def test_the_set_up_screens_rounds_field_is_refused_in_the_language(lang, syntax, unknown):
    from duckcover.engine import rules_with_variants

    errors = []
    for spec in ("competition:x", "colour:3"):
        with pytest.raises(ValueError) as err:
            rules_with_variants([spec])
        assert "rounds are numbers" in str(err.value) or "unknown variant" in str(err.value)  # CLI: English
        errors.append(err.value)
    i18n.set_language(lang)
    assert error_text(errors[0]) == syntax
    assert error_text(errors[1]).startswith(unknown)


@pytest.mark.keys  # a guest app on a table server: the slow tier
@pytest.mark.parametrize("lang, expected", [("de", "Tisch von ann"), ("fr", "Table de ann"), ("en", "ann's table")])
async def test_a_table_left_unnamed_is_named_in_its_creators_language(server, lang, expected):
    i18n.set_language(lang)
    app = RemoteApp(AppOptions(data_dir=server.data_dir, speed="instant", lang=lang), str(server.sock),
                    server.issue_token(Identity("ann")))
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(200):
            if isinstance(app.screen, LobbyScreen):
                break
            await pilot.pause(0.02)
        await pilot.press("c")
        for _ in range(200):
            if type(app.screen).__name__ == "CreateTableScreen":
                break
            await pilot.pause(0.02)
        await pilot.press("ctrl+s")
        for _ in range(200):  # seated at the new table, waiting for players
            if server.tables and isinstance(app.screen, WaitingScreen):
                break
            await pilot.pause(0.02)
        await pilot.pause(0.1)
        assert [table.name for table in server.tables.values()] == [expected]
