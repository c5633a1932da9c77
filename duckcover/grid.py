"""`duckcover.grid`: moved to `duckcover.engine.grid`; these names stay here for bot authors."""
# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.engine.grid
from .engine.grid import cover_targets, duck_targets, neighbours  # noqa: F401

__all__ = ['cover_targets', 'duck_targets', 'neighbours']
