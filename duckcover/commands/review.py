"""`duckcover review FILE [--seat S] [--json] [--lang L] [--key K]`: what each decision cost, by
the expert's estimate from the seat's own view (docs/review.md). On a terminal it shows a
progress bar on standard error; the review is kept in the data directory, so asking again is
instant."""
from __future__ import annotations

import os
import sys

from ..common.untrusted import shown
from ..engine.errors import DuckError
from ..saves.record import RecordError, dumps, read_file, replay
from .numbers import MAX_BUDGET, MAX_JOBS, whole


def add_parser(sub) -> None:
    parser = sub.add_parser("review", help="what each decision of a game cost, by the expert's estimate")
    parser.add_argument("file", help="a duckcover-record/1 JSON file")
    parser.add_argument("--seat", action="append", metavar="SEAT",
                        help="a seat to review: its number (0-based), its player's name, or 'all'; "
                             "repeat for more (default: every human; every seat if all are bots)")
    parser.add_argument("--json", action="store_true", help="print every figure as JSON (docs/review.md)")
    parser.add_argument("--lang", choices=("en", "de", "fr"), help="language of the report (default: from the locale)")
    parser.add_argument("--key", help="the sampling key (default: from the record's public content)")
    parser.add_argument("--budget", type=whole(1, MAX_BUDGET), metavar="N",
                        help=f"rollouts per move at most, 1-{MAX_BUDGET} (default: 1200)")
    parser.add_argument("--jobs", type=whole(1, MAX_JOBS), metavar="N",
                        help=f"processes to use, 1-{MAX_JOBS} (default: every core)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor keep the review in the data directory")
    parser.set_defaults(command="review")


def run(args) -> int:
    from ..players import review as rv

    try:
        data = read_file(args.file)
        game = replay(data)
        seats = rv.choose_seats(data, args.seat)
    except (RecordError, DuckError, rv.ReviewError) as err:
        print(shown(f"{args.file}: {err}", 500), file=sys.stderr)
        return 2
    budget = args.budget or rv.BUDGET
    path = None if args.no_cache else rv.cache_path(data, args.key, budget, seats)
    result = rv.cached(path) if path else None
    if result is None:
        bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
        try:
            result = rv.review(data, [str(s) for s in seats], key=args.key, budget=budget,
                               jobs=args.jobs or os.cpu_count() or 1, progress=bar, game=game)
        finally:
            if bar:
                bar.close()
        if path:
            rv.keep(path, result)
    if args.json:
        import json

        sys.stdout.write(dumps(result.to_json()))
        return 0
    from ..common.i18n import detect, set_language

    set_language(args.lang or detect())
    sys.stdout.write(report(result))
    return 0


class ProgressBar:
    """`review  [#########.........]  12/34` on one line of a terminal, redrawn in place."""

    WIDTH = 30

    def __init__(self, stream) -> None:
        self.stream = stream

    def __call__(self, done: int, total: int) -> None:
        filled = self.WIDTH * done // total if total else self.WIDTH
        self.stream.write(f"\rreview  [{'#' * filled}{'.' * (self.WIDTH - filled)}]  {done}/{total}")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\r\x1b[K")
        self.stream.flush()


def report(result) -> str:
    """The review as text: each seat's totals, then its marked and costliest decisions."""
    from ..common.i18n import t, tn
    from ..common.untrusted import NAME_MAX
    from ..players.review import MARKS

    lines = []
    for seat in result.seats:
        name = shown(seat.name, NAME_MAX)
        lines.append(tn("review.seat_line", len(seat.decisions), name=name, total=f"{seat.total_cost:.1f}",
                        mean=f"{seat.mean_cost:.2f}"))
        rounds = "  ".join(t("review.round_cost", round=i + 1, cost=f"{c:.1f}") for i, c in enumerate(seat.round_costs()))
        lines.append("  " + rounds)
        counts = seat.marks()
        lines.append("  " + ", ".join(f"{t('review.mark.' + m)}: {counts[m]}" for m in MARKS))
        for d in seat.decisions:
            if d.mark or d in seat.costliest():
                lines.append("  " + decision_line(d))
        lines.append("")
    return "\n".join(lines)


def decision_line(d) -> str:
    from ..common.i18n import t

    mark = t(f"review.mark.{d.mark}") if d.mark else "-"
    return t("review.decision_line", round=d.round, flip=d.flip, played=move_text(d.played),
             best=move_text(d.best), cost=f"{d.cost:.1f}", stderr=f"{d.stderr:.1f}", mark=mark)


def move_text(move) -> str:
    from ..players.review import move_notation

    return move_notation(move)
