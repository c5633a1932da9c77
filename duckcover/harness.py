"""`duckcover.harness`: moved to `duckcover.players.harness`; these names stay here for bot authors,
with a DeprecationWarning that says where they went."""
import warnings

warnings.warn("duckcover.harness moved: import these names from duckcover.players.harness (docs/bots.md)", DeprecationWarning,
              stacklevel=2)

# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.players.harness
from .players.harness import new_bot_key, play_game  # noqa: F401

__all__ = ['new_bot_key', 'play_game']
