"""duckcover: Duck & Cover in the terminal. The rules engine lives here and never imports Textual."""
from .cards import MAX, REPEAT, Card
from .errors import DuckError, IllegalMoveError, ParseError, RulesError
from .game import Game, GameOutcome, Phase, RoundOutcome
from .moves import Call, Move, Turn
from .rules import Rules
from .view import PlayerView

__all__ = [
    "MAX", "REPEAT", "Call", "Card", "DuckError", "Game", "GameOutcome", "IllegalMoveError", "Move",
    "ParseError", "Phase", "PlayerView", "RoundOutcome", "Rules", "RulesError", "Turn",
]
__version__ = "0.1.0"
