"""The app's one door to bots: loading a spec and asking a bot for a decision safely."""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ..game import Game, Phase
from ..moves import Move
from ..view import PlayerView

if TYPE_CHECKING:
    from ..bot import Bot

DIFFICULTY_NAMES = ("easy", "medium", "hard")


def load_bot(spec: str, seed: int) -> Bot:
    """A bot for a difficulty or any installed bot spec (duckcover.plugins); BotLoadError if none."""
    from ..plugins import resolve_bot

    return resolve_bot(spec, seed=seed)


def installed_bots() -> list[str]:
    """Names of the bots registered through the `duckcover.bots` entry points."""
    try:
        from ..plugins import available_bots

        return [info.name for info in available_bots() if info.error is None]
    except Exception:  # noqa: BLE001 - a broken plugin must not break the setup screen
        return []


def bot_decision(bot: Bot, view: PlayerView, seed: int, game: Game) -> tuple[Move | None, str | None]:
    """The bot's move for `view` (a legal one), and why a fallback was used, if it was.

    Runs in a worker thread: it reads the game (for the fallback) but never changes it.
    The RNG is reseeded per decision so a resumed game plays on exactly as before. The bot
    itself runs in a daemon thread of its own with a hard time limit, so a bot that never
    answers costs one fallback move, never the game.
    """
    from ..harness import DecisionRandom  # here: the table's first frame needs no bot code
    from ..safety import DEFAULT_HARD_LIMIT, fallback_move, hard_limit_for, sanitize

    if not isinstance(bot.__dict__.get("rng"), DecisionRandom):
        bot.rng = DecisionRandom()
    step = 1 if view.phase is Phase.PLACE else 0
    bot.rng.reseed(seed, view.seat, view.round_index, len(view.history), step)
    answer: list = []

    def ask() -> None:
        try:
            answer.append(("move", bot.choose(view)))
        except BaseException as err:  # noqa: BLE001 - somebody else's bot: fall back, never crash
            answer.append(("error", err))

    thread = threading.Thread(target=ask, name=f"bot-{view.seat}", daemon=True)
    thread.start()
    limit = hard_limit_for(bot, DEFAULT_HARD_LIMIT)
    thread.join(limit)
    if not answer:
        reason = f"no answer within {limit:g} s"
    elif answer[0][0] == "error":
        err = answer[0][1]
        reason = f"{type(err).__name__}: {err}"
    else:
        try:
            move = sanitize(answer[0][1])
        except Exception as err:  # noqa: BLE001 - a malformed answer is the bot's fault, not ours
            move, reason = None, f"malformed answer: {err}"
        else:
            if view.is_legal(move):
                return move, None
            reason = f"illegal answer {move}"
    return fallback_move(game, view.seat), reason
