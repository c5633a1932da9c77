"""The rules a table agreed on before the game: options, variants and the numbers they imply.

Everything here is a pure function of `Rules`; see docs/rules.md for the reasoning
behind each ruling.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .cards import MAX, NUMBERS, REPEAT, default_splashes
from .errors import RulesError

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


@dataclass(frozen=True, slots=True)
class Rules:
    max_by: str = "number"
    captain: str = "rotate"
    variants: frozenset[str] = frozenset()
    splashes: tuple[int, ...] = field(default_factory=default_splashes)
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
            raise RulesError(f"unknown variant {unknown[0]!r} (known: {', '.join(VARIANTS)})")
        if LOW_BLOWS in self.variants and TWO_FLIPS in self.variants:
            raise RulesError("low-blows and two-flips cannot be combined: both redefine the turn")
        if len(self.splashes) != 12:
            raise RulesError("the splash table needs 12 values")
        object.__setattr__(self, "splashes", tuple(self.splashes))
        scored = range(13) if COMPETITION in self.variants else (0, *self.splashes)
        object.__setattr__(self, "values", tuple(scored))
        ranked = range(13) if self.max_by == "number" else (0, *self.splashes)
        # Under Constraints, ducks 1-3 only move when carried, so Max never picks them (ruling).
        uncallable = 3 if CONSTRAINTS in self.variants else 0
        object.__setattr__(self, "max_keys", tuple(-1 if n <= uncallable else key for n, key in enumerate(ranked)))

    def has(self, variant: str) -> bool:
        return variant in self.variants

    # --- numbers that follow from the rules -------------------------------------------
    def check_players(self, players: int) -> None:
        low, high = (2, 5) if self.has(COOPERATIVE) else (2, 9)
        if not low <= players <= high:
            what = "the cooperative variant takes" if self.has(COOPERATIVE) else "a table takes"
            raise RulesError(f"{what} {low}-{high} players, not {players}")

    def rounds(self) -> int:
        return COOPERATIVE_ROUNDS if self.has(COOPERATIVE) else ROUNDS

    def discard_limit(self, players: int) -> int | None:
        """Players plus discarded cards make 11 (2->9 ... 7->4, Artists Pack 8->3, 9->2)."""
        return None if self.has(TWO_FLIPS) else 11 - players

    def deck(self) -> list[int]:
        """The captain deck, unshuffled: two series 1-12, Max and Repeat (Constraints drops 1-3)."""
        numbers = [n for n in NUMBERS if n > 3] if self.has(CONSTRAINTS) else list(NUMBERS)
        return numbers + numbers + [MAX, REPEAT]

    def value(self, number: int) -> int:
        """What a visible card scores: its splashes, or its number under Competition."""
        return self.values[number]

    def max_key(self, number: int) -> int:
        """How Max ranks a visible card: its number or its splashes, per the max_by option."""
        return number if self.max_by == "number" else self.splashes[number - 1]

    def captain_of(self, first: int, round_index: int, players: int) -> int:
        return first if self.captain == "fixed" else (first + round_index) % players

    def round_score(self, values: list[int], last_round: bool) -> int:
        """Visible values count plus with several stacks, minus with exactly one."""
        if len(values) == 1:
            score = -values[0]
            return score * 2 if last_round and self.has(PRESSURE) else score
        return sum(values)

    def to_json(self) -> dict:
        return {
            "max_by": self.max_by,
            "captain": self.captain,
            "variants": sorted(self.variants, key=VARIANTS.index),
            "splashes": list(self.splashes),
        }
