"""`duckcover.plugins`: moved to `duckcover.players.plugins`; these names stay here for bot authors,
with a DeprecationWarning that says where they went."""
import warnings

warnings.warn("duckcover.plugins moved: import these names from duckcover.players.plugins (docs/bots.md)", DeprecationWarning,
              stacklevel=2)

# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.players.plugins
from .players.plugins import BotLoadError, available_bots, resolve_bot  # noqa: F401
from .players.sandbox import seat_bot  # noqa: F401

__all__ = ['BotLoadError', 'available_bots', 'resolve_bot', 'seat_bot']
