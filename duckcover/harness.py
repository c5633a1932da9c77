"""`duckcover.harness`: moved to `duckcover.players.harness`; these names stay here for bot authors."""
# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.players.harness
from .players.harness import new_bot_key, play_game  # noqa: F401

__all__ = ['new_bot_key', 'play_game']
