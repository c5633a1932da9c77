"""`duckcover.bot`: moved to `duckcover.players.bot`; these names stay here for bot authors,
with a DeprecationWarning that says where they went."""
import warnings

warnings.warn("duckcover.bot moved: import these names from duckcover.players.bot (docs/bots.md)", DeprecationWarning,
              stacklevel=2)

# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.players.bot
from .players.bot import Bot  # noqa: F401

__all__ = ['Bot']
