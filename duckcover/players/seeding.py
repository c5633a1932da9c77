"""The bots' randomness: a per-game secret key and one keyed-hash seed per decision.

A leaf module (standard library only) so that the harness, the Referee and the bot process
all seed bots the same way without importing one another.
"""
from __future__ import annotations

import hashlib
import random
import secrets

KEY_BYTES = 16  # a per-game secret: 128 bits


def new_bot_key() -> bytes:
    """A fresh secret for the bots' randomness (kept in the record as `bot_key`, never in a view)."""
    return secrets.token_bytes(KEY_BYTES)


def bot_key_for(seed: int) -> bytes:
    """The bots' key derived from a seed that was given (`--seed`, the arena's deals), so that
    seed alone reproduces the whole game. It tells nothing the seed does not: a keyed hash
    cannot be run backwards, and whoever knows the seed knows the deal anyway."""
    return hashlib.blake2b(str(seed).encode(), digest_size=KEY_BYTES, person=b"duckcover-bots").digest()


def decision_key(key: bytes | int, seat: int, round_index: int, turn: int, step: int) -> int:
    """The seed of one decision's RNG: a keyed hash (BLAKE2b) of where the decision is.

    Without the key nothing can be learnt from it, however many a bot collects; with the key
    (which the record keeps) a replay or a resumed game makes exactly the same draws. An int
    key is a seed (see bot_key_for)."""
    if not isinstance(key, bytes):
        key = bot_key_for(key)
    data = b"%d:%d:%d:%d" % (seat, round_index, turn, step)
    return int.from_bytes(hashlib.blake2b(data, digest_size=16, key=key).digest(), "big")


def constructor_seed(key: bytes | int, seat: int) -> int:
    """The `seed` a bot is constructed with: from the key too, so it reveals nothing."""
    return decision_key(key, seat, -1, -1, -1)


class DecisionRandom(random.Random):
    """A bot's RNG, reseeded for every decision from the game's secret key and (seat, round, turn, step).

    The seed is applied lazily, on first use, because most decisions never draw a number.
    That keeps a bot reproducible decision by decision, so a resumed game plays on as the
    uninterrupted one would have.
    """

    _pending: tuple | None = None

    def reseed(self, key: bytes | int, *where: int) -> None:
        """Seed from decision_key(key, seat, round, turn, step) before the next draw (the hash
        is computed only then); with `key` alone, seed from that int."""
        self._pending = (key, *where)

    def _apply(self) -> None:
        where, self._pending = self._pending, None
        super().seed(decision_key(*where) if len(where) > 1 else where[0])

    def random(self) -> float:
        if self._pending is not None:
            self._apply()
        return super().random()

    def getrandbits(self, k: int) -> int:
        if self._pending is not None:
            self._apply()
        return super().getrandbits(k)
