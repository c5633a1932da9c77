"""The scorepad as a Rich table: per-round scores, totals and the winner(s), with why.

In the current UI language (`replay --summary --lang`): a face of the game, not the engine.
"""
from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..engine.game import Game
from .i18n import t, tn
from .untrusted import NAME_MAX, shown


def scorepad_table(game: Game) -> Table:
    table = Table(title=t("scorepad.title"), title_justify="left")
    table.add_column(t("scorepad.player"))
    for index, log in enumerate(game.rounds):
        table.add_column(t("scorepad.round", n=index + 1), justify="right")
    table.add_column(t("score.total"), justify="right", style="bold")
    outcome = game.outcome()
    winners = set(outcome.winners) if outcome else set()
    for seat, name in enumerate(game.names):
        cells = []
        for log in game.rounds:
            cells.append(f"{log.outcome.scores[seat]:+d}" if log.outcome else "…")
        label = shown(name, NAME_MAX)
        table.add_row(Text(t("scorepad.winner", name=label) if seat in winners else label), *cells, str(game.totals[seat]))
    return table


def describe_end(game: Game) -> list[str]:
    lines = []
    for index, log in enumerate(game.rounds):
        if log.outcome:
            lines.append(tn("scorepad.ended", len(log.turns), n=index + 1,
                           reason=t(f"scorepad.reason.{log.outcome.reason}")))
        else:
            lines.append(tn("scorepad.in_progress", len(log.turns), n=index + 1))
    outcome = game.outcome()
    if outcome is None:
        lines.append(t("scorepad.unfinished"))
    else:
        names = f" {t('scorepad.and')} ".join(shown(game.names[s], NAME_MAX) for s in outcome.winners)
        why = t(f"scorepad.why.{outcome.decided_by}", total=sum(outcome.totals))
        lines.append(t("scorepad.winner_line", names=names, why=why))
    return lines


def print_summary(game: Game, data: dict | None = None, console: Console | None = None) -> None:
    console = console or Console()
    console.print(scorepad_table(game))
    for line in describe_end(game):
        console.print(Text(line))
