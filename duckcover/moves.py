"""`duckcover.moves`: moved to `duckcover.engine.moves`; these names stay here for bot authors,
with a DeprecationWarning that says where they went."""
import warnings

warnings.warn("duckcover.moves moved: import these names from duckcover.engine (docs/bots.md)", DeprecationWarning,
              stacklevel=2)

# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.engine.moves
from .engine.moves import Call, Move, Phase, Turn  # noqa: F401

__all__ = ['Call', 'Move', 'Phase', 'Turn']
