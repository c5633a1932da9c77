"""The rules a table agreed on before the game: options, variants and the numbers they imply.

Everything here is a pure function of `Rules`; see docs/rules.md for the reasoning
behind each ruling.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .cards import MAX, NUMBERS, REPEAT, default_splashes
from .errors import Refusal, RulesError

COMPETITION = "competition"
PRESSURE = "pressure"
CONSTRAINTS = "constraints"
SURPRISES = "surprises"
MADNESS = "madness"
LOW_BLOWS = "low-blows"
TWO_FLIPS = "two-flips"
COOPERATIVE = "cooperative"
ARTISTS_PACK = "artists-pack"

VARIANTS = (COMPETITION, PRESSURE, CONSTRAINTS, SURPRISES, MADNESS, LOW_BLOWS, TWO_FLIPS, COOPERATIVE, ARTISTS_PACK)
MAX_BY = ("number", "splashes")
CAPTAIN = ("rotate", "fixed")
TURN_CAP = 1000  # safety net: no real round comes near it
ROUNDS = 3
COOPERATIVE_ROUNDS = 2
SURPRISE_CARDS = 2
WHOLE_GAME = (COOPERATIVE, ARTISTS_PACK)  # they change the table or the number of rounds: never per round


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
        self._check_variant_rounds()
        if any({LOW_BLOWS, TWO_FLIPS} <= self.variants_in(index) for index in range(self.rounds())):
            raise RulesError(Refusal("low-blows-two-flips", "low-blows and two-flips cannot be combined: both redefine the turn"))
        if len(self.splashes) != 12:
            raise RulesError("the splash table needs 12 values")
        object.__setattr__(self, "splashes", tuple(self.splashes))
        scored = range(13) if COMPETITION in self.variants else (0, *self.splashes)
        object.__setattr__(self, "values", tuple(scored))
        ranked = range(13) if self.max_by == "number" else (0, *self.splashes)
        # Under Constraints, ducks 1-3 only move when carried, so Max never picks them (ruling).
        uncallable = 3 if CONSTRAINTS in self.variants else 0
        object.__setattr__(self, "max_keys", tuple(-1 if n <= uncallable else key for n, key in enumerate(ranked)))

    def _check_variant_rounds(self) -> None:
        raw = self.variant_rounds
        pairs = raw.items() if isinstance(raw, Mapping) else raw
        rounds = self.rounds()
        normal = []
        for name, numbers in pairs:
            if name not in self.variants:
                raise RulesError(Refusal("rounds-not-a-variant", f"rounds are given for {name!r}, which is not among the variants",
                                        variant=name))
            if name in WHOLE_GAME:
                raise RulesError(Refusal("whole-game-variant", f"{name} applies to the whole game, not to some rounds", variant=name))
            numbers = tuple(numbers) if isinstance(numbers, (list, tuple, set, frozenset)) else ()
            if not numbers or any(type(n) is not int or not 1 <= n <= rounds for n in numbers):
                raise RulesError(Refusal("bad-variant-rounds", f"{name}: rounds must be numbers from 1 to {rounds}",
                                        variant=name, rounds=rounds))
            numbers = tuple(sorted(set(numbers)))
            if name == PRESSURE and rounds not in numbers:
                raise RulesError(Refusal("pressure-last-round", f"pressure acts in the last round only: its rounds must include {rounds}",
                                        rounds=rounds))
            if len(numbers) < rounds and name != PRESSURE:  # every round (or Pressure's last) is no restriction
                normal.append((name, numbers))
        object.__setattr__(self, "variant_rounds", tuple(sorted(normal)))

    def has(self, variant: str) -> bool:
        """Does the variant apply (in some round, if it is limited to some)?"""
        return variant in self.variants

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
        low, high = (2, 5) if self.has(COOPERATIVE) else (2, 9)
        if not low <= players <= high:
            if self.has(COOPERATIVE):
                raise RulesError(Refusal("cooperative-players", f"the cooperative variant takes {low}-{high} players, "
                                         f"not {players}", low=low, high=high, players=players))
            raise RulesError(Refusal("table-players", f"a table takes {low}-{high} players, not {players}",
                                     low=low, high=high, players=players))

    def rounds(self) -> int:
        return COOPERATIVE_ROUNDS if self.has(COOPERATIVE) else ROUNDS

    def discard_limit(self, players: int) -> int | None:
        """Players plus discarded cards make 11 (2->9 ... 7->4, Artists Pack 8->3, 9->2)."""
        return None if self.has(TWO_FLIPS) else 11 - players

    def deck(self) -> list[int]:
        """The captain deck, unshuffled: two series 1-12, Max and Repeat (Constraints drops 1-3)."""
        numbers = [n for n in NUMBERS if n > 3] if self.has(CONSTRAINTS) else list(NUMBERS)
        return numbers + numbers + [MAX, REPEAT]

    @property
    def scores_numbers(self) -> bool:
        """Visible cards score their numbers (Competition), not their splashes."""
        return COMPETITION in self.variants

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
            return score * 2 if last_round and self.has(PRESSURE) else score
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
