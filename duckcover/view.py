"""`duckcover.view`: moved to `duckcover.engine.view`; these names stay here for bot authors,
with a DeprecationWarning that says where they went."""
import warnings

warnings.warn("duckcover.view moved: import these names from duckcover.engine (docs/bots.md)", DeprecationWarning,
              stacklevel=2)

# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.engine.view
from .engine.view import GridView, PlayerView  # noqa: F401

__all__ = ['GridView', 'PlayerView']
