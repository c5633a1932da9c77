"""The rules a table agreed on before the game: options, variants and the numbers they imply.

Everything here is a pure function of `Rules`; see docs/rules.md for the reasoning
behind each ruling. What a variant changes is declared by its object in
duckcover/engine/variants.py; `Rules` holds the objects in force and folds their hooks into the
questions the engine, the views, the app and the bots ask.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .cards import MAX, NUMBERS, REPEAT, default_splashes
from .errors import Refusal, RulesError
from .variants import BY_NAME, Variant, in_force

# Some variants' names, as records and `--variant` spell them, for tests and tools that name
# one (the engine and the faces ask the hooks instead; a new variant needs no constant here).
COMPETITION, PRESSURE, CONSTRAINTS, SURPRISES, MADNESS = "competition", "pressure", "constraints", "surprises", "madness"
LOW_BLOWS, TWO_FLIPS, COOPERATIVE, ARTISTS_PACK = "low-blows", "two-flips", "cooperative", "artists-pack"
VARIANTS = tuple(BY_NAME)  # every variant's name, in the registry's (and records') order
APP_VARIANTS = tuple(name for name, variant in BY_NAME.items() if variant.not_in_app is None)  # the app seats 2-7
MAX_BY = ("number", "splashes")
CAPTAIN = ("rotate", "fixed")
MIN_PLAYERS = 2
BOX_PLAYERS = 7  # seven families in the box (RULES.md): the app and the server seat 2-7
MAX_PLAYERS = 9  # the Artists Pack's two more families seat 8-9 (the arena plays them)
TURN_CAP = 1000  # safety net: no real round comes near it
ROUNDS = 3


@dataclass(frozen=True, slots=True)
class Rules:
    max_by: str = "number"
    captain: str = "rotate"
    variants: frozenset[str] = frozenset()
    splashes: tuple[int, ...] = field(default_factory=default_splashes)
    # The rounds (1-based) a variant applies to, for variants that do not apply to every round:
    # {"competition": [3]}. Stored as sorted (name, rounds) pairs; a variant not named here
    # applies to all rounds. `for_round` gives the rules in force in one round.
    variant_rounds: tuple[tuple[str, tuple[int, ...]], ...] = ()
    # values[n]: what a visible card n scores under these rules (index 0 unused); derived.
    values: tuple[int, ...] = field(init=False, repr=False, compare=False)
    # max_keys[n]: how Max ranks a visible card n (index 0 unused; -1: Max never takes it).
    max_keys: tuple[int, ...] = field(init=False, repr=False, compare=False)
    # The objects of `variants`, in the registry's order, and their hooks folded (derived):
    in_force: tuple[Variant, ...] = field(init=False, repr=False, compare=False)
    flips_per_turn: int = field(init=False, repr=False, compare=False)
    removed_unseen: int = field(init=False, repr=False, compare=False)  # cards out, unseen, each round
    gifts: bool = field(init=False, repr=False, compare=False)  # Max and Repeat are gifts (low blows)
    says_quack: bool = field(init=False, repr=False, compare=False)
    own_sounds: bool = field(init=False, repr=False, compare=False)  # animal sounds instead of Quack
    discards: bool = field(init=False, repr=False, compare=False)  # unplayed cards go to the Discard area
    scores_numbers: bool = field(init=False, repr=False, compare=False)  # numbers score, not splashes
    team: bool = field(init=False, repr=False, compare=False)  # one team total, all win together

    def __post_init__(self) -> None:
        if self.max_by not in MAX_BY:
            raise RulesError(f"max_by must be one of {', '.join(MAX_BY)}, not {self.max_by!r}")
        if self.captain not in CAPTAIN:
            raise RulesError(f"captain must be one of {', '.join(CAPTAIN)}, not {self.captain!r}")
        object.__setattr__(self, "variants", frozenset(self.variants))
        unknown = sorted(self.variants - set(VARIANTS))
        if unknown:
            raise RulesError(Refusal("unknown-variant", f"unknown variant {unknown[0]!r} (known: {', '.join(VARIANTS)})",
                                    variant=unknown[0], known=", ".join(VARIANTS)))
        variants = in_force(self.variants)
        self._fold(variants)
        self._check_variant_rounds()
        self._check_turns()
        if len(self.splashes) != 12:
            raise RulesError("the splash table needs 12 values")
        object.__setattr__(self, "splashes", tuple(self.splashes))
        scored = range(13) if self.scores_numbers else (0, *self.splashes)
        object.__setattr__(self, "values", tuple(scored))
        ranked = range(13) if self.max_by == "number" else (0, *self.splashes)
        uncallable = max((variant.max_skips_up_to for variant in variants), default=0)
        object.__setattr__(self, "max_keys", tuple(-1 if n <= uncallable else key for n, key in enumerate(ranked)))

    def _fold(self, variants: tuple[Variant, ...]) -> None:
        """The hooks' answers for this set of variants, once (the engine reads them every round)."""
        folded = {
            "in_force": variants,
            "flips_per_turn": max((variant.flips_per_turn for variant in variants), default=1),
            "removed_unseen": sum(variant.removed_unseen for variant in variants),
            "gifts": any(variant.gifts for variant in variants),
            "says_quack": all(variant.says_quack for variant in variants),
            "own_sounds": any(variant.own_sounds for variant in variants),
            "discards": all(variant.discards for variant in variants),
            "scores_numbers": any(variant.scores_numbers for variant in variants),
            "team": any(variant.team for variant in variants),
        }
        for name, value in folded.items():
            object.__setattr__(self, name, value)

    def _check_turns(self) -> None:
        for index in range(self.rounds()):
            redefining = [variant.name for variant in in_force(self.variants_in(index)) if variant.redefines_turn]
            if len(redefining) > 1:
                raise RulesError(Refusal("low-blows-two-flips",
                                         f"{redefining[0]} and {redefining[1]} cannot be combined: both redefine the turn"))

    def _check_variant_rounds(self) -> None:
        raw = self.variant_rounds
        pairs = raw.items() if isinstance(raw, Mapping) else raw
        rounds = self.rounds()
        normal = []
        for name, numbers in pairs:
            if name not in self.variants:
                raise RulesError(Refusal("rounds-not-a-variant", f"rounds are given for {name!r}, which is not among the variants",
                                        variant=name))
            variant = BY_NAME[name]
            if variant.whole_game:
                raise RulesError(Refusal("whole-game-variant", f"{name} applies to the whole game, not to some rounds", variant=name))
            numbers = tuple(numbers) if isinstance(numbers, (list, tuple, set, frozenset)) else ()
            if not numbers or any(type(n) is not int or not 1 <= n <= rounds for n in numbers):
                raise RulesError(Refusal("bad-variant-rounds", f"{name}: rounds must be numbers from 1 to {rounds}",
                                        variant=name, rounds=rounds))
            numbers = tuple(sorted(set(numbers)))
            if variant.last_round_only and rounds not in numbers:
                raise RulesError(Refusal("pressure-last-round", f"{name} acts in the last round only: its rounds must include {rounds}",
                                        rounds=rounds))
            if len(numbers) < rounds and not variant.last_round_only:  # every round (or the last one's) is no restriction
                normal.append((name, numbers))
        object.__setattr__(self, "variant_rounds", tuple(sorted(normal)))

    def variants_in(self, round_index: int) -> frozenset[str]:
        """The variants in force in round `round_index` (0-based)."""
        off = {name for name, numbers in self.variant_rounds if round_index + 1 not in numbers}
        return self.variants - off if off else self.variants

    def for_round(self, round_index: int) -> Rules:
        """The rules in force in round `round_index` (0-based): every variant applies all round."""
        if not self.variant_rounds:
            return self
        return Rules(self.max_by, self.captain, self.variants_in(round_index), self.splashes)

    # --- numbers that follow from the rules -------------------------------------------
    def check_players(self, players: int) -> None:
        for variant in self.in_force:  # a variant's own limits first (Cooperative: 2-5)
            variant.check_players(players)
        low, high = MIN_PLAYERS, MAX_PLAYERS
        if not low <= players <= high:
            raise RulesError(Refusal("table-players", f"a table takes {low}-{high} players, not {players}",
                                     low=low, high=high, players=players))

    def rounds(self) -> int:
        rounds = ROUNDS
        for variant in self.in_force:
            rounds = variant.rounds(rounds)
        return rounds

    def discard_limit(self, players: int) -> int | None:
        """Players plus discarded cards make 11 (2->9 ... 7->4, Artists Pack 8->3, 9->2);
        None where nothing is discarded (Two flips)."""
        return 11 - players if self.discards else None

    def deck(self) -> list[int]:
        """The captain deck, unshuffled: two series 1-12, Max and Repeat (Constraints drops 1-3)."""
        cards = [*NUMBERS, *NUMBERS, MAX, REPEAT]
        for variant in self.in_force:
            cards = variant.deck(cards)
        return cards

    @property
    def in_app(self) -> bool:
        """Can the app (its setup, `play`, the server) seat this game? Not an 8-9 player variant."""
        return all(variant.not_in_app is None for variant in self.in_force)

    def value(self, number: int) -> int:
        """What a visible card scores: its splashes, or its number under Competition."""
        return self.values[number]

    def max_key(self, number: int) -> int:
        """How Max ranks a visible card: its number or its splashes, per the max_by option;
        -1 for a card Max never takes (1-3 under Constraints)."""
        return self.max_keys[number]

    def captain_of(self, first: int, round_index: int, players: int) -> int:
        return first if self.captain == "fixed" else (first + round_index) % players

    def round_score(self, values: list[int], last_round: bool) -> int:
        """Visible values count plus with several stacks, minus with exactly one."""
        if len(values) == 1:
            score = -values[0]
            for variant in self.in_force:
                score = variant.lone_stack_score(score, last_round)
            return score
        return sum(values)

    def to_json(self) -> dict:
        data = {
            "max_by": self.max_by,
            "captain": self.captain,
            "variants": sorted(self.variants, key=VARIANTS.index),
            "splashes": list(self.splashes),
        }
        if self.variant_rounds:  # only when some variant skips some round: older records stay as they were
            data["variant_rounds"] = {name: list(numbers) for name, numbers in self.variant_rounds}
        return data


def parse_variant(text: str) -> tuple[str, tuple[int, ...] | None]:
    """`NAME` or `NAME:ROUNDS` (`competition:3`, `surprises:1,2`): the name and its rounds
    (None: all rounds). ValueError with one readable line otherwise."""
    name, colon, rounds = text.partition(":")
    name = name.strip().lower()
    if name not in VARIANTS:
        raise ValueError(Refusal("unknown-variant", f"unknown variant {name!r} (known: {', '.join(VARIANTS)})",
                                 variant=repr(name)[:40], known=", ".join(VARIANTS)))
    if not colon:
        return name, None
    try:
        numbers = tuple(int(part) for part in rounds.split(","))
    except ValueError:
        raise ValueError(Refusal("variant-rounds-syntax", f"{text!r}: rounds are numbers separated by commas, e.g. {name}:1,3",
                                 spec=repr(text)[:40], name=name)) from None
    return name, numbers


def rules_with_variants(specs: list[str], **options: str) -> Rules:
    """Rules from `--variant NAME[:ROUNDS]` values (repeatable; a name given twice joins its rounds).
    ValueError or RulesError with one readable line for bad input."""
    variants: set[str] = set()
    rounds: dict[str, set[int] | None] = {}
    for spec in specs:
        name, numbers = parse_variant(spec)
        variants.add(name)
        if numbers is None or rounds.get(name, set()) is None:
            rounds[name] = None
        else:
            rounds.setdefault(name, set()).update(numbers)
    limited = {name: tuple(numbers) for name, numbers in rounds.items() if numbers is not None}
    return Rules(variants=frozenset(variants), variant_rounds=limited, **options)
