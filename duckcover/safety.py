"""`duckcover.safety`: moved to `duckcover.players.safety`; these names stay here for bot authors."""
# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.players.safety
from .players.safety import PassiveBot, Referee, add_fallbacks  # noqa: F401

__all__ = ['PassiveBot', 'Referee', 'add_fallbacks']
