"""duckcover: Duck & Cover in the terminal. The rules engine lives here and never imports Textual."""
from .engine.cards import MAX, REPEAT, Card
from .engine.errors import DuckError, IllegalMoveError, ParseError, RulesError
from .engine.game import Game, GameOutcome, Phase, RoundOutcome
from .engine.moves import Call, Move, Turn
from .engine.rules import Rules
from .engine.view import PlayerView

__all__ = [
    "MAX", "REPEAT", "Call", "Card", "DuckError", "Game", "GameOutcome", "IllegalMoveError", "Move",
    "ParseError", "Phase", "PlayerView", "RoundOutcome", "Rules", "RulesError", "Turn",
]
__version__ = "0.1.0"
