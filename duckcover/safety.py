"""`duckcover.safety`: moved to `duckcover.players.safety`; these names stay here for bot authors,
with a DeprecationWarning that says where they went."""
import warnings

warnings.warn("duckcover.safety moved: import these names from duckcover.players.safety (docs/bots.md)", DeprecationWarning,
              stacklevel=2)

# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.players.safety
from .players.safety import PassiveBot, Referee, add_fallbacks  # noqa: F401

__all__ = ['PassiveBot', 'Referee', 'add_fallbacks']
