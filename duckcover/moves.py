"""`duckcover.moves`: moved to `duckcover.engine.moves`; these names stay here for bot authors."""
# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.engine.moves
from .engine.moves import Call, Move, Phase, Turn  # noqa: F401

__all__ = ['Call', 'Move', 'Phase', 'Turn']
