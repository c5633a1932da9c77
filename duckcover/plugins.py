"""`duckcover.plugins`: moved to `duckcover.players.plugins`; these names stay here for bot authors."""
# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.players.plugins
from .players.plugins import BotLoadError, available_bots, resolve_bot  # noqa: F401
from .players.sandbox import seat_bot  # noqa: F401

__all__ = ['BotLoadError', 'available_bots', 'resolve_bot', 'seat_bot']
