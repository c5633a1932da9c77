"""`duckcover.game`: moved to `duckcover.engine.game`; these names stay here for bot authors."""
# rooms: a thin re-export for bot authors (docs/bots.md); the code is in duckcover.engine.game
from .engine.game import Game, GameOutcome, Phase, RoundOutcome  # noqa: F401

__all__ = ['Game', 'GameOutcome', 'Phase', 'RoundOutcome']
