"""`duckcover.grid`: moved to `duckcover.engine.grid`; these names stay here for bot authors,
with a DeprecationWarning that says where they went."""
import warnings

warnings.warn("duckcover.grid moved: import these names from duckcover.engine (docs/bots.md)", DeprecationWarning,
              stacklevel=2)

# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.engine.grid
from .engine.grid import cover_targets, duck_targets, neighbours  # noqa: F401

__all__ = ['cover_targets', 'duck_targets', 'neighbours']
