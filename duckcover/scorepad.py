"""The scorepad as a Rich table: per-round scores, totals and the winner(s), with why."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .game import Game
from .untrusted import NAME_MAX, shown

REASONS = {
    "single-stack": "a single stack",
    "discard-limit": "the discard limit",
    "turn-cap": "the 1,000-flip safety net",
}


def scorepad_table(game: Game) -> Table:
    table = Table(title="Scorepad", title_justify="left")
    table.add_column("Player")
    for index, log in enumerate(game.rounds):
        table.add_column(f"Round {index + 1}", justify="right")
    table.add_column("Total", justify="right", style="bold")
    outcome = game.outcome()
    winners = set(outcome.winners) if outcome else set()
    for seat, name in enumerate(game.names):
        cells = []
        for log in game.rounds:
            cells.append(f"{log.outcome.scores[seat]:+d}" if log.outcome else "…")
        mark = " (winner)" if seat in winners else ""
        # Names are untrusted: a Text cell is never read as markup; shown() makes it printable.
        table.add_row(Text(shown(name, NAME_MAX) + mark), *cells, str(game.totals[seat]))
    return table


def describe_end(game: Game) -> list[str]:
    lines = []
    for index, log in enumerate(game.rounds):
        if log.outcome:
            lines.append(f"Round {index + 1}: {len(log.turns)} flips, ended by {REASONS[log.outcome.reason]}.")
        else:
            lines.append(f"Round {index + 1}: in progress after {len(log.turns)} flips.")
    outcome = game.outcome()
    if outcome is None:
        lines.append("The game is not finished.")
    else:
        names = " and ".join(shown(game.names[s], NAME_MAX) for s in outcome.winners)
        why = {
            "score": "with the lowest total",
            "fewest-cards": "on the tie-break: fewest visible cards at the end",
            "shared": "sharing the victory (tied on total and visible cards)",
            "team": f"together: team total {sum(outcome.totals)}",
        }[outcome.decided_by]
        lines.append(f"Winner: {names}, {why}.")
    return lines


def print_summary(game: Game, data: dict | None = None, console: Console | None = None) -> None:
    console = console or Console()
    console.print(scorepad_table(game))
    for line in describe_end(game):
        console.print(Text(line))  # a line may hold names: text, not markup
