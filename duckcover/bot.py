"""`duckcover.bot`: moved to `duckcover.players.bot`; these names stay here for bot authors."""
# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.players.bot
from .players.bot import Bot  # noqa: F401

__all__ = ['Bot']
