"""A variant is one object with hooks (duckcover/engine/variants.py): the registry, what each
variant's hooks do to the rules, the questions the faces ask instead of naming a variant,
and a guard that no flag check (`rules.has(...)`, a variant's name tested) comes back."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import duckcover
import duckcover_bots
from duckcover.app.controller import TurnController
from duckcover.app.options import SeatSpec
from duckcover.engine import MAX, REPEAT, Call, Game, Move, RulesError, Turn, variants
from duckcover.engine.rules import APP_VARIANTS, VARIANTS, Rules
from duckcover.engine.view import turn_quacks


# --- the registry ----------------------------------------------------------------------------
def test_the_registry_holds_one_object_per_record_name_in_the_records_order():
    # docs/record.md: these names, in this order (to_json sorts by it: records stay byte-identical).
    # New variants come after these, whose order records keep.
    assert VARIANTS == tuple(variants.BY_NAME) and VARIANTS[:9] == (
        "competition", "pressure", "constraints", "surprises", "madness", "low-blows", "two-flips", "cooperative",
        "artists-pack")
    assert all(isinstance(v, variants.Variant) and v.name == name for name, v in variants.BY_NAME.items())
    assert len({type(v) for v in variants.BY_NAME.values()}) == len(VARIANTS)


def test_a_second_variant_with_a_taken_name_is_refused():
    with pytest.raises(TypeError, match="two variants are named 'pressure'"):
        type("Again", (variants.Variant,), {"name": "pressure"})
    assert type(variants.BY_NAME["pressure"]).__name__ == "Pressure"


def test_rules_hold_the_objects_of_their_variants_in_registry_order():
    rules = Rules(variants=frozenset({"two-flips", "competition"}))
    assert [v.name for v in rules.in_force] == ["competition", "two-flips"]
    assert Rules().in_force == ()


def test_the_app_offers_every_variant_but_the_eight_to_nine_player_one():
    assert APP_VARIANTS == tuple(name for name in VARIANTS if name != "artists-pack")
    assert not Rules(variants=frozenset({"artists-pack"})).in_app and Rules(variants=frozenset(VARIANTS[:5])).in_app


# --- each variant's hooks, against RULES.md "Options and variants" ---------------------------------
COMBINABLE = [name for name in VARIANTS[:9] if name != "two-flips"]  # low-blows and two-flips never share a round


@st.composite
def variant_sets(draw):
    chosen = set(draw(st.sets(st.sampled_from(COMBINABLE))))
    if draw(st.booleans()):
        chosen = (chosen - {"low-blows"}) | {"two-flips"}
    return frozenset(chosen)


@given(variant_sets(), st.integers(2, 5), st.booleans())
def test_every_hook_answers_as_the_rules_text_says_for_any_set_of_variants(chosen, players, last_round):
    rules = Rules(variants=chosen)
    has = chosen.__contains__
    deck = rules.deck()
    assert len(deck) == (20 if has("constraints") else 26) and deck.count(MAX) == deck.count(REPEAT) == 1
    assert (min(n for n in deck if n <= 12) == 4) == has("constraints")
    assert rules.removed_unseen == (2 if has("surprises") else 0)
    assert rules.flips_per_turn == (2 if has("two-flips") else 1)
    assert rules.says_quack == rules.discards == (not has("two-flips"))
    assert rules.discard_limit(players) == (None if has("two-flips") else 11 - players)
    assert rules.gifts == has("low-blows")
    assert rules.own_sounds == has("madness")
    assert rules.team == has("cooperative") and rules.rounds() == (2 if has("cooperative") else 3)
    assert rules.scores_numbers == has("competition")
    assert rules.value(12) == (12 if has("competition") else 5)
    lone = rules.round_score([rules.value(9)], last_round)
    assert lone == -rules.value(9) * (2 if has("pressure") and last_round else 1)
    assert rules.round_score([rules.value(9), rules.value(2)], last_round) == rules.value(9) + rules.value(2)
    assert (rules.max_key(3) == -1) == has("constraints") and rules.max_key(4) == 4


def test_only_the_cooperative_variant_narrows_the_table():
    with pytest.raises(RulesError, match="the cooperative variant takes 2-5 players, not 6"):
        Rules(variants=frozenset({"cooperative"})).check_players(6)
    Rules(variants=frozenset({"competition", "madness"})).check_players(9)
    with pytest.raises(RulesError, match="a table takes 2-9 players, not 10"):
        Rules().check_players(10)


def test_two_variants_that_redefine_the_turn_cannot_share_a_round():
    with pytest.raises(RulesError, match="low-blows and two-flips cannot be combined: both redefine the turn"):
        Rules(variants=frozenset({"low-blows", "two-flips"}))


# --- the questions the faces ask ---------------------------------------------------------------
def quack_turn(call: Call, players: int = 2, gifts=None) -> Turn:
    return Turn(tuple(o for o in call.options) or (REPEAT,), call, (None,) * players, gifts, True)


@pytest.mark.parametrize("call, rules, expected", [
    (Call("move", (5,)), Rules(), (True, True)),  # a called duck that is covered: Quack
    (Call("move", (MAX,)), Rules(variants=frozenset({"constraints"})), (False, False)),  # nobody quacks on Max
    (Call("dead"), Rules(), (False, False)),  # a Repeat that calls nothing
    (Call("move", (5, 7)), Rules(variants=frozenset({"two-flips"})), (False, False)),  # no Quack under two flips
])
def test_turn_quacks_says_who_said_quack(call, rules, expected):
    assert turn_quacks(quack_turn(call), rules) == expected


def test_a_seat_that_moved_or_placed_a_gift_did_not_quack():
    game = Game(2, seed=1)
    card = next(iter(game.grid(0).values()))[-1]
    moved = Turn((5,), Call("move", (5,)), (Move(card, (4, 0)), None))
    assert turn_quacks(moved, Rules()) == (False, True)
    placed = Turn((MAX,), Call("gift"), (None, None), (Move(card, None), None))
    assert turn_quacks(placed, Rules(variants=frozenset({"low-blows"}))) == (False, False)


def test_the_live_log_says_nobody_quacked_on_a_max_under_constraints():
    # The replay always said so; the table's own log said "Quack" for a seat showing only 1-3.
    game = Game(["Ann", "Ben"], Rules(variants=frozenset({"constraints"})), seed=1)
    ctl = TurnController(game, [SeatSpec("Ann"), SeatSpec("Ben", "medium")])
    assert ctl.turn_lines(quack_turn(Call("move", (MAX,))))[:2] == ["Ann: nothing to move", "Ben: nothing to move"]
    assert ctl.turn_lines(quack_turn(Call("move", (5,))))[:2] == ["Ann: Quack!", "Ben: Quack!"]


def test_madness_asks_the_rules_for_sounds_not_the_variant_name():
    game = Game(["Ann", "Ben"], Rules(variants=frozenset({"madness"})), seed=1)
    ctl = TurnController(game, [SeatSpec("Ann", None, "Moo"), SeatSpec("Ben", None, "Baa")])
    assert [ctl.quack_word(0), ctl.quack_word(1)] == ["Moo", "Baa"]
    assert [p.get("sound") for p in ctl.record()["players"]] == ["Moo", "Baa"]
    plain = TurnController(Game(["Ann", "Ben"], Rules(), seed=1), [SeatSpec("Ann", None, "Moo"), SeatSpec("Ben")])
    assert plain.quack_word(0) == "Quack" and "sound" not in plain.record()["players"][0]


# --- the guard: no flag checks outside the variants module ----------------------------------------
NAME_CONSTANTS = {"COMPETITION", "PRESSURE", "CONSTRAINTS", "SURPRISES", "MADNESS", "LOW_BLOWS", "TWO_FLIPS",
                  "COOPERATIVE", "ARTISTS_PACK"}


def _sources() -> list[Path]:
    return [path for package in (duckcover, duckcover_bots) for path in sorted(Path(package.__file__).parent.rglob("*.py"))]


def flag_checks(path: Path) -> list[str]:
    """Where a module asks for a variant by name instead of calling a hook."""
    if path.name == "variants.py":
        return []
    holder = path.name == "rules.py"  # names the constants (for tests) and checks names are known
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Attribute) and node.attr == "has":
            found.append(f"{where}: .has(...)")
        elif isinstance(node, ast.FunctionDef) and node.name == "has":
            found.append(f"{where}: def has")
        elif isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                if (isinstance(side, ast.Name) and side.id in NAME_CONSTANTS) or (
                        isinstance(side, ast.Constant) and side.value in VARIANTS):
                    found.append(f"{where}: compares a variant's name")
                if not holder and isinstance(side, ast.Attribute) and side.attr == "variants" and any(
                        isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
                    found.append(f"{where}: tests membership in .variants")
        elif not holder and isinstance(node, ast.ImportFrom) and any(a.name in NAME_CONSTANTS for a in node.names):
            found.append(f"{where}: imports a variant's name")
        elif not holder and isinstance(node, ast.Constant) and node.value in VARIANTS:
            found.append(f"{where}: spells a variant's name")
    return found


def test_no_flag_checks_outside_the_variants_module():
    sources = _sources()
    assert any(path.name == "game.py" for path in sources) and any(path.name == "expert.py" for path in sources)
    assert [found for path in sources for found in flag_checks(path)] == []


@pytest.mark.parametrize("line", [
    "def f(rules):\n    return rules.has(TWO_FLIPS)\n",
    "def f(rules):\n    return 'two-flips' in rules.variants\n",
    "from .rules import MADNESS\n",
    "def f(name):\n    return name == PRESSURE\n",
])
def test_the_guard_catches_each_way_back_to_flags(tmp_path, line):
    module = tmp_path / "somewhere.py"
    module.write_text(line)
    assert flag_checks(module)
