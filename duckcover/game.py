"""`duckcover.game`: moved to `duckcover.engine.game`; these names stay here for bot authors,
with a DeprecationWarning that says where they went."""
import warnings

warnings.warn("duckcover.game moved: import these names from duckcover.engine (docs/bots.md)", DeprecationWarning,
              stacklevel=2)

# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.engine.game
from .engine.game import Game, GameOutcome, Phase, RoundOutcome  # noqa: F401

__all__ = ['Game', 'GameOutcome', 'Phase', 'RoundOutcome']
