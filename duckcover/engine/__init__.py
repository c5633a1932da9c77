"""The rules engine: pure rules, no I/O, no threads, no Textual. Imports nothing of duckcover's outside itself.

The door: `from duckcover.engine import Game, Rules, Move, ...` (bots, docs and tests
use it; the engine's own modules import one another directly)."""
# rooms: the engine's door
from .cards import CARDS, FAMILIES, MAX, NUMBERS, REPEAT, Card, flip_name, parse_flip
from .errors import DuckError, IllegalMoveError, ParseError, Refusal, RulesError
from .grid import Cell, Stack, cover_targets, duck_targets, neighbours
from .moves import Call, Move, Phase, Turn
from .rules import VARIANTS, Rules, rules_with_variants
from .game import CHOOSING, Game, GameOutcome, RoundOutcome, new_seed
from .view import GridView, PlayerView

__all__ = [
    "CARDS",
    "CHOOSING",
    "Call",
    "Card",
    "Cell",
    "DuckError",
    "FAMILIES",
    "Game",
    "GameOutcome",
    "GridView",
    "IllegalMoveError",
    "MAX",
    "Move",
    "NUMBERS",
    "ParseError",
    "Phase",
    "PlayerView",
    "REPEAT",
    "Refusal",
    "RoundOutcome",
    "Rules",
    "RulesError",
    "Stack",
    "Turn",
    "VARIANTS",
    "cover_targets",
    "duck_targets",
    "flip_name",
    "neighbours",
    "new_seed",
    "parse_flip",
    "rules_with_variants",
]
