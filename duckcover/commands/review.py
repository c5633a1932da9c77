"""`duckcover review FILE [--seat S] [--json] [--lang L] [--key K]`: what each decision cost, by
the expert's estimate from the seat's own view (docs/review.md). On a terminal it shows a
progress bar on standard error; every decision is kept in the data directory as it is judged,
in the cache the app's Review screen uses too, so asking again (or after the app) is instant
and a stopped review goes on where it stopped."""
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
    # The app's cache: a review the Review screen made (every seat) answers here at once.
    store = None if args.no_cache else rv.cache_path(game, args.key, budget)
    from ..common.i18n import detect, set_language, t

    set_language(args.lang or detect())  # the moves and reasons in words, in --json too
    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    try:
        result = rv.review(data, [str(s) for s in seats], key=args.key, budget=budget,
                           jobs=args.jobs or os.cpu_count() or 1, progress=bar, game=game, store=store)
    except KeyboardInterrupt:
        if bar:
            bar.close()
            bar = None
        # What was judged is kept (`store`): asking again goes on from there.
        print(t("review.stopped" if store else "review.stopped_uncached"), file=sys.stderr)
        return 130
    finally:
        if bar:
            bar.close()
    if args.json:
        sys.stdout.write(dumps(result.to_json()))
        return 0
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
    """The review as text: each seat's totals, then its marked and costliest decisions, the moves
    in the table's words and each mark with its reason."""
    from ..common.i18n import local_number, t, tn
    from ..common.untrusted import NAME_MAX
    from ..players.review import MARKS

    lines = []
    for seat in result.seats:
        name = shown(seat.name, NAME_MAX)
        lines.append(tn("review.seat_line", len(seat.decisions), name=name, total=local_number(seat.total_cost, 1),
                        mean=local_number(seat.mean_cost, 2)))
        rounds = "  ".join(t("review.round_cost", round=i + 1, cost=local_number(c, 1))
                           for i, c in enumerate(seat.round_costs()))
        lines.append("  " + rounds)
        counts = seat.marks()
        lines.append("  " + ", ".join(f"{t('review.mark.' + m)}: {counts[m]}" for m in MARKS))
        costliest = seat.costliest()
        for d in seat.decisions:
            if d.mark or d in costliest:
                lines += ["  " + line for line in decision_lines(d, result.points.get(d.place))]
        lines.append("")
    return "\n".join(lines)


def decision_lines(d, point) -> list[str]:
    """One decision: where, the move played and the expert's best in words, the cost and the
    mark; then, for a mark, its reason."""
    from ..common.i18n import local_number, t
    from ..players import review as rv

    mark = t(f"review.mark.{d.mark}") if d.mark else "-"
    played, best = (rv.move_words(point, d.played), rv.move_words(point, d.best)) if point else ("?", "?")
    lines = [t("review.decision_line", round=d.round, flip=d.flip, played=played, best=best,
               cost=local_number(rv.shown_figure(d.cost), 1), stderr=local_number(rv.shown_figure(d.stderr), 1),
               mark=mark)]
    why = rv.reason(point, d) if point else None
    if why:
        lines.append("  " + why)
    return lines
