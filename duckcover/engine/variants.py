"""The variants: one object each, declaring the hooks the engine and the views call.

`Variant` is the standard game; a variant is a subclass that overrides only the hooks it
changes, and is registered by its `name` (the word records and `--variant` use) when the
class is defined. `Rules` (duckcover/engine/rules.py) holds the objects of the variants in force and
folds their hooks into what the engine, the views, the app and the bots ask (`rules.deck()`,
`rules.says_quack`, ...); nothing else looks a variant up by its name. The lists of names
(`rules.VARIANTS`, `rules.APP_VARIANTS`) are made from the registry once this module has run,
so a class added anywhere below is in them.

Adding a variant: its class here, its locale lines (`variant.NAME`, `variant_name.NAME`),
its tests, its row in docs/rules.md.

Engine-level: imports only engine modules.
"""
from __future__ import annotations

from typing import ClassVar

from .errors import Refusal, RulesError


class Variant:
    """The standard game: every hook as the rulebook has it."""

    name: ClassVar[str] = ""

    # --- the table ------------------------------------------------------------------------
    whole_game: ClassVar[bool] = False  # it changes the table or the rounds: never limited to some rounds
    last_round_only: ClassVar[bool] = False  # it acts in the last round only: its rounds must include it
    redefines_turn: ClassVar[bool] = False  # two variants that redefine the turn cannot share a round
    # Why the app (setup, `play --variant`, the server) does not offer it; None: it does.
    not_in_app: ClassVar[str | None] = None

    def check_players(self, players: int) -> None:
        """Raise RulesError if the variant cannot be played with this many players."""

    def rounds(self, rounds: int) -> int:
        return rounds

    # --- the draw deck and the flips ------------------------------------------------------
    def deck(self, cards: list[int]) -> list[int]:
        """The draw deck's cards (codes: 1-12, Max, Repeat); the rulebook's is two series 1-12,
        Max and Repeat."""
        return cards

    removed_unseen: ClassVar[int] = 0  # cards removed, unseen, from the draw deck before each round
    flips_per_turn: ClassVar[int] = 1

    # --- the calls and what players say -----------------------------------------------------
    gifts: ClassVar[bool] = False  # Max and Repeat become gifts to the left (cards change hands)
    max_skips_up_to: ClassVar[int] = 0  # Max never takes a visible duck numbered this or lower
    says_quack: ClassVar[bool] = True  # a player whose called duck is covered says Quack
    own_sounds: ClassVar[bool] = False  # ... or an animal sound of their choice (cosmetic)
    discards: ClassVar[bool] = True  # a card nobody plays goes to the Discard area, which ends rounds

    # --- scoring and winning --------------------------------------------------------------
    scores_numbers: ClassVar[bool] = False  # visible ducks score their numbers, not their splashes

    def lone_stack_score(self, score: int, last_round: bool) -> int:
        """The (negative) score of a player who finished the round on one stack."""
        return score

    team: ClassVar[bool] = False  # the table plays as one team: one total, everybody wins together

    # --- registry -------------------------------------------------------------------------
    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.name in BY_NAME:
            raise TypeError(f"two variants are named {cls.name!r}")
        BY_NAME[cls.name] = cls()

    def __repr__(self) -> str:
        return f"<variant {self.name}>"


BY_NAME: dict[str, Variant] = {}  # the registry, in the order the classes are defined below


def in_force(names: frozenset[str] | set[str]) -> tuple[Variant, ...]:
    """The variant objects for these names, in the registry's order (names must be known)."""
    return tuple(variant for name, variant in BY_NAME.items() if name in names)


class Competition(Variant):
    name = "competition"
    scores_numbers = True


class Pressure(Variant):
    name = "pressure"
    last_round_only = True

    def lone_stack_score(self, score: int, last_round: bool) -> int:
        return score * 2 if last_round else score


class Constraints(Variant):
    name = "constraints"
    max_skips_up_to = 3  # ducks 1-3 only move when carried, so Max never picks them (ruling)

    def deck(self, cards: list[int]) -> list[int]:
        return [code for code in cards if code > 3]  # the six Captain cards 1, 2, 3 (Max and Repeat stay)


class Surprises(Variant):
    name = "surprises"
    removed_unseen = 2


class Madness(Variant):
    name = "madness"
    own_sounds = True


class LowBlows(Variant):
    name = "low-blows"
    redefines_turn = True
    gifts = True


class TwoFlips(Variant):
    name = "two-flips"
    redefines_turn = True
    flips_per_turn = 2
    says_quack = False
    discards = False


class Cooperative(Variant):
    name = "cooperative"
    whole_game = True
    team = True
    PLAYERS = (2, 5)

    def check_players(self, players: int) -> None:
        low, high = self.PLAYERS
        if not low <= players <= high:
            raise RulesError(Refusal("cooperative-players", f"the cooperative variant takes {low}-{high} players, "
                                     f"not {players}", low=low, high=high, players=players))

    def rounds(self, rounds: int) -> int:
        return 2


class ArtistsPack(Variant):
    name = "artists-pack"
    whole_game = True
    not_in_app = "is for 8-9 players; the app seats 2-7 (use arena)"  # it only means more seats

