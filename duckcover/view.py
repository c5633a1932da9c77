"""`duckcover.view`: moved to `duckcover.engine.view`; these names stay here for bot authors."""
# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.engine.view
from .engine.view import GridView, PlayerView  # noqa: F401

__all__ = ['GridView', 'PlayerView']
