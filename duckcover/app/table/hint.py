"""The hint key: what the expert bot would play for the human choosing now, and why.

The expert looks only at that seat's own `PlayerView` (the one the seat decides from), in a
worker thread so the table never freezes. Its estimate is its round score minus the others'
mean (lower is better), the number it minimises when it plays.
"""
from __future__ import annotations

import math

from ...common.i18n import local_number, t
from ...common.telling import advice_words
from ...engine.game import Phase
from ...engine.moves import Move
from ...engine.view import PlayerView

BUDGET: int | None = None  # rollouts per hint; None: the expert's own default (tests lower it)
SHOWN = 2  # the best move and the next best


def enabled(app) -> bool:
    """Hints are on unless the player's settings turned them off."""
    settings = getattr(app, "settings", None)
    return settings is None or settings.hints


def analyse(view: PlayerView, game_seed: int) -> list[tuple[Move, float]]:
    """The expert's ranking for `view`, best first (the same hint for the same position)."""
    from ..bots import load_bot

    step = 1 if view.phase is Phase.PLACE else 0
    # A hint is for the person at the keyboard, never a bot: its seed may come from the game's.
    seed = hash((game_seed, view.seat, view.round_index, len(view.history), step)) & 0xFFFFFFFFFFFF
    bot = load_bot("expert", seed)
    bot.rng.seed(seed)
    return bot.analyse(view, budget=BUDGET)


def request(table) -> None:
    """Ask the expert in a worker thread; the answer goes to the log, a notice and the cursor."""
    seat, token = table.chooser, table.flow.number
    view, seed, app = table.ctl.views[seat], table.ctl.game.seed, table.app
    asked = table.__dict__.setdefault("hints_asked", {})  # (seat, token) -> ranking, None while thinking
    key = (seat, token)
    if key in asked:  # asked again for the same choice: show the answer again, search nothing
        if asked[key] is not None:
            show(table, seat, token, view, asked[key])
        return
    asked.clear()
    asked[key] = None
    if not table.flow.pass_and_play():  # who asked for a hint is nobody else's business either
        table.log_line(t("hint.thinking"))

    def work() -> None:
        try:
            ranking = analyse(view, seed)
        except Exception as err:  # noqa: BLE001 - a hint must never end a game
            asked.pop(key, None)
            app.call_from_thread(app.notify, t("hint.failed", error=str(err)), severity="warning")
            return
        asked[key] = ranking
        app.call_from_thread(show, table, seat, token, view, ranking)

    table.run_worker(work, name="hint", group="hint", thread=True, exclusive=True, exit_on_error=False)


def show(table, seat: int, token: int, view: PlayerView, ranking: list[tuple[Move, float]]) -> None:
    if not table.is_attached or table.chooser != seat or table.flow.number != token:
        return  # the choice is over: the advice no longer applies
    text = describe(view, ranking)
    if not table.flow.pass_and_play():  # the log stays on screen for the next human: a notice only
        table.log_line(text)
    table.app.notify(text, title=t("hint.title"), timeout=8)
    if ranking:
        highlight(table, view, ranking[0][0])


def highlight(table, view: PlayerView, move: Move | None) -> None:
    """Put the cursor on the suggested cell: the card to pick, or where it goes."""
    if move is None:
        return
    grid = table.query_one("#own-panel").grid
    origin = next((cell for card, cell in view.candidates if card == move.card), None)
    if table.stage in ("pick", "gift"):
        target = origin
    elif table.stage == "dest" and table.picked is not None and table.picked[0] != move.card:
        target = table.picked[1]  # another card is picked: the hint names the one to pick instead
    else:
        target = move.to
    if target in grid.targets:
        grid.cursor = target


def describe_move(view: PlayerView, move: Move | None) -> str:
    """A move in the log's words: cover 9 with 12 / duck 12 beside 7 / give 11."""
    return advice_words(view.grid.cells, move)


def describe(view: PlayerView, ranking: list[tuple[Move, float]]) -> str:
    """'Hint: cover 9 with 12 (about -1.8 against the others this round); next best: ...'."""
    if not ranking:
        return t("hint.none")
    parts = [_one(view, *ranking[0])]
    text = t("hint.best", move=parts[0])
    if len(ranking) >= SHOWN:
        text += "; " + t("hint.next", move=_one(view, *ranking[1]))
    return text


def _one(view: PlayerView, move: Move, estimate: float) -> str:
    words = describe_move(view, move)
    if math.isnan(estimate):
        return t("hint.quick", move=words)
    return t("hint.estimate", move=words, score=local_number(estimate, 1, signed=True))

