"""The replay viewer: a record stepped turn by turn, seen as a referee sees it.

The record is replayed once (`duckcover.saves.record.replay` checks every move), then the game is
re-run from its own round logs into one snapshot per turn. The engine's grids are
copy-on-write, so a snapshot keeps the grid mappings themselves: no copies, and stepping
back and forth is only a matter of showing another snapshot.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.binding import Binding
from textual.widgets import Static

from ...common.i18n import t, tn
from ...common.untrusted import NAME_MAX, shown
from ...engine.cards import REPEAT
from ...engine.game import CHOOSING, Game, Phase, RoundOutcome
from ...engine.grid import Cell, Stack, fmt_cell, sorted_stacks
from ...engine.moves import Turn
from ...engine.view import turn_quacks
from ...saves.record import read_players, read_turn_seats, replay
from ..passplay import read_sounds, sound_of
from ..widgets.cards import family_letter
from ..widgets.glyphs import PlainKeys, adapt
from ...common.telling import (dead_repeat_words, discard_words, fallback_words, flip_words, gift_words, idle_words, move_words, round_end_words,
                      round_scores_words, round_start_words, stand_in_words)
from ..widgets.core import GridWidget
from ..widgets.footer import KeyFooter
from ..words import flip_word
from .review import SYMBOLS, ReviewGrid, cost_words, grid_marks, kept_review, reason_words
from .review import move_words as review_move_words

Grids = tuple[Mapping[Cell, Stack], ...]


@dataclass(frozen=True)
class Step:
    """The table after one turn (turn 0: just dealt) of one round."""

    round_index: int
    turn_no: int
    captain: int
    grids: Grids
    before: Grids  # the grids before this turn, to put its moves into words
    discard: tuple[int, ...]
    pile: tuple[int, ...]
    draw_size: int
    totals: tuple[int, ...]
    turn: Turn | None  # None for the deal
    outcome: RoundOutcome | None  # set on the turn that ended the round


@dataclass
class Timeline:
    names: tuple[str, ...]
    bots: list[str | None]
    game: Game  # the whole record, replayed
    steps: list[Step]
    sounds: list[str | None] = field(default_factory=list)  # Madness: players[i]["sound"]

    @property
    def rules(self):
        return self.game.rules

    def round_starts(self) -> list[int]:
        return [i for i, step in enumerate(self.steps) if step.turn_no == 0]

    def turns_in_round(self, round_index: int) -> int:
        return len(self.game.rounds[round_index].turns)


def build_timeline(data: dict, final: Game | None = None) -> Timeline:
    """Every turn of the record as a Step. RecordError (from replay) if the record is broken.

    `final`: the record already replayed (by the caller, to report errors before any app starts).
    """
    final = replay(data) if final is None else final
    _, bots = read_players(data)
    game = Game(list(final.names), final.rules, final.seed, final.first_captain, start=False)
    steps: list[Step] = []
    for index, log in enumerate(final.rounds):
        game.start_round(log.layouts, log.removed, log.captain, log.deck)
        steps.append(_snapshot(game, index, 0, None, _grids(game)))
        for turn_no, turn in enumerate(log.turns, start=1):
            before = _grids(game)
            _play_turn(game, turn)
            steps.append(_snapshot(game, index, turn_no, game.last_turn, before))
    return Timeline(final.names, bots, final, steps, read_sounds(data))


def _grids(game: Game) -> Grids:
    return tuple(game.grid(seat) for seat in range(game.n))


def _play_turn(game: Game, turn: Turn) -> None:
    """Re-play a turn the record already proved legal (its cards are resolved)."""
    game.flip(*turn.flips)
    if game.phase is Phase.GIFT:
        game.play(list(turn.gifts or (None,) * game.n))
    if game.phase in CHOOSING:
        game.play(list(turn.moves))


def _snapshot(game: Game, index: int, turn_no: int, turn: Turn | None, before: Grids) -> Step:
    log = game.rounds[index]
    ended = log.outcome if turn is not None and game.phase in (Phase.ROUND_OVER, Phase.GAME_OVER) else None
    return Step(index, turn_no, log.captain, _grids(game), before, game.discard, game.pile,
                game.draw_size, game.totals, turn, ended)


# --- words --------------------------------------------------------------------------------------
def card_word(card, seat: int) -> str:
    """A card's number, with its family letter when it is not the seat's own (low blows)."""
    return str(card.number) if card.family == seat else f"{family_letter(card.family)}{card.number}"


def flip_line(timeline: Timeline, step: Step) -> str:
    turn = step.turn
    names = timeline.names
    if turn is None:
        from ...common.telling import said

        return said("replay.deal", names[step.captain], round=step.round_index + 1)
    card = " + ".join(flip_word(code) for code in turn.flips)
    call = turn.call
    if turn.flips == (REPEAT,) and call.kind == "move":  # a lone Repeat says what it repeats
        card = t("replay.repeat_of", card=card, call=flip_word(call.options[0]))
    return t("replay.flip", turn=step.turn_no, name=shown(names[step.captain], NAME_MAX), card=card)


def move_lines(timeline: Timeline, step: Step) -> list[str]:
    """What every seat did this turn, in the words of the table's log."""
    turn = step.turn
    if turn is None:
        return []
    names, n = timeline.names, len(timeline.names)
    rules = timeline.rules.for_round(step.round_index)  # a variant may play some rounds only
    if turn.call.kind == "dead":
        return [dead_repeat_words()]
    lines = []
    placing = turn.gifts is not None
    quacks = turn_quacks(turn, rules)
    if placing:
        lines += [gift_words(names[seat], card_word(gift.card, seat), names[(seat + 1) % n])
                  for seat, gift in enumerate(turn.gifts) if gift is not None]
    for seat, move in enumerate(turn.moves):
        if move is not None:
            word = partial(card_word, seat=seat)
            lines.append(move_words(names[seat], step.before[seat], move, placing, word))
        else:  # only a number a player cannot show is a Quack (turn_quacks)
            lines.append(idle_words(names[seat], quack_word(timeline, seat, rules) if quacks[seat] else None))
    if turn.discarded:
        lines.append(discard_words(len(step.discard), rules.discard_limit(n)))
    return lines


def quack_word(timeline: Timeline, seat: int, rules) -> str:
    """Madness (in this round's `rules`): each seat its animal sound (as at the table), else Quack."""
    return sound_of(timeline.sounds, rules, seat)  # the record's own words, if it has them


def end_lines(timeline: Timeline, step: Step) -> list[str]:
    """The round's end, its scores, and the winner after the last round."""
    outcome = step.outcome
    if outcome is None:
        return []
    names = timeline.names
    lines = [t("replay.round_end", round=step.round_index + 1, reason=t(f"reason.{outcome.reason}"))]
    lines.append(t("replay.scores", scores=", ".join(f"{names[s]} {score:+d}" for s, score in enumerate(outcome.scores))))
    final = timeline.game.outcome()
    if final is not None and step is timeline.steps[-1]:
        lines.append(t("replay.winner", names=", ".join(names[s] for s in final.winners)))
    return lines


def story_lines(timeline: Timeline, record: dict | None = None) -> list[str]:
    """The whole record in words, deal by deal and turn by turn, as the table's log said it
    live (the same functions write both): what the log shows of the game so far after a
    resume, a reconnect, or to a watcher who joins mid-game. `record`: the record's own marks
    (fallback and stand-in moves) are told too."""
    names = timeline.names
    marked = {key: read_turn_seats(record, key) for key in ("fallbacks", "standins")} if record else {}
    lines = []
    for step in timeline.steps:
        if step.turn is None:
            lines.append(round_start_words(step.round_index + 1))
            continue
        card = " + ".join(flip_word(code) for code in step.turn.flips)
        lines.append(flip_words(step.round_index + 1, step.turn_no, card, names[step.captain]))
        lines += ["  " + line for line in move_lines(timeline, step)]
        at = (step.round_index, step.turn_no - 1)
        for key, words in (("fallbacks", fallback_words), ("standins", stand_in_words)):
            lines += ["  " + words(names[seat]) for seat in marked.get(key, {}).get(at, ()) if seat < len(names)]
        if step.outcome is not None:
            lines.append(round_end_words(step.round_index + 1, step.outcome.reason))
            lines.append(round_scores_words(step.round_index + 1, names, step.outcome.scores))
    return lines


def stack_lines(timeline: Timeline, step: Step, every: bool) -> list[str]:
    """Each seat's stacks bottom -> top: only those hiding cards, or every stack."""
    lines = []
    for seat, grid in enumerate(step.grids):
        lines.append(timeline.names[seat])
        listed = [(cell, stack) for cell, stack in sorted_stacks(grid) if every or len(stack) > 1]
        for cell, stack in listed:
            cards = " ".join(card_word(card, seat) for card in stack)
            lines.append(f"  {fmt_cell(cell)}: {cards}")
        if not listed:
            lines.append("  " + t("replay.no_covered"))
    return lines


# --- the screen ---------------------------------------------------------------------------------
class Panel(VerticalScroll, can_focus=False):
    """A scrolling panel that never takes focus: the screen's keys step the replay."""


class ReplayScreen(Screen):
    """Step through a record: left/right a turn, PageUp/PageDown a round, 1-3 a round, q closes."""

    CSS_PATH = "history.tcss"
    AUTO_FOCUS = None
    # Keys without a label in the Footer first; then the labelled ones (UI text keys: KeyFooter).
    BINDINGS = [
        Binding("home", "go_first", show=False),
        Binding("end", "go_last", show=False),
        *(Binding(str(number), f"jump({number - 1})", show=False) for number in range(1, 10)),
        Binding("up,k", "scroll_side(-1)", show=False),
        Binding("down,j", "scroll_side(1)", show=False),
        Binding("shift+left", "scroll_grids(-1)", show=False),  # grids grow wider than a small terminal
        Binding("shift+right", "scroll_grids(1)", show=False),
        Binding("left,h", "step(-1)", "replay.key_back", key_display="←"),
        Binding("right,l", "step(1)", "replay.key_forward", key_display="→"),
        Binding("pageup", "round(-1)", "replay.key_prev_round", key_display="PgUp"),
        Binding("pagedown", "round(1)", "replay.key_next_round", key_display="PgDn"),
        Binding("s", "toggle_stacks", "replay.key_stacks"),
        # Not in the footer: at 80 columns it would cut "q Close" (docs/review.md names the key).
        Binding("v", "review", "review.key.review", show=False),
        Binding("q,escape", "close", "replay.key_close"),
    ]

    index: reactive[int] = reactive(0, init=False)

    def __init__(self, timeline: Timeline, title: str = "") -> None:
        super().__init__()
        self.timeline = timeline
        self.record_title = title
        self.every_stack = False
        self.marked: dict = {}  # (round, turn, seat) -> (name, marked Decision) of a kept review

    def compose(self) -> ComposeResult:
        yield Static(id="replay-status")
        with Horizontal(id="replay-body"):
            with Panel(id="replay-grids"):
                for seat in range(len(self.timeline.names)):
                    yield Static(classes="replay-seat-title", id=f"replay-title-{seat}")
                    yield ReviewGrid(seat, large=False, focusable=False, id=f"replay-grid-{seat}")
            with Panel(id="replay-side"):
                yield Static(id="replay-turn")
                yield Static(id="replay-table")
                yield Static(id="replay-stacks")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.load_review()
        self.show_step()

    def on_screen_resume(self) -> None:
        self.load_review()  # back from the Review screen: its marks show here too
        self.show_step()

    def load_review(self) -> None:
        """The review kept for this game (made on the Review screen, `v`), or None."""
        try:
            found = kept_review(self.timeline.game, list(self.timeline.bots), getattr(self.app, "data_root", None))
        except Exception:  # noqa: BLE001 - the viewer works without a review
            found = None
        self.marked = {} if found is None else {
            d.place: (seat.name, d, found.points.get(d.place)) for seat in found.seats for d in seat.decisions if d.mark}

    # --- state --------------------------------------------------------------------------
    @property
    def step(self) -> Step | None:
        steps = self.timeline.steps
        return steps[self.index] if steps else None

    def watch_index(self) -> None:
        self.show_step()
        self.refresh_bindings()

    def go(self, index: int) -> None:
        if self.timeline.steps:
            self.index = max(0, min(index, len(self.timeline.steps) - 1))

    def round_start(self, round_index: int) -> int | None:
        starts = self.timeline.round_starts()
        return starts[round_index] if 0 <= round_index < len(starts) else None

    # --- actions ------------------------------------------------------------------------
    def action_step(self, delta: int) -> None:
        self.go(self.index + delta)

    def action_go_first(self) -> None:
        self.go(0)

    def action_go_last(self) -> None:
        self.go(len(self.timeline.steps) - 1)

    def action_jump(self, round_index: int) -> None:
        start = self.round_start(round_index)
        if start is not None:
            self.go(start)

    def action_round(self, delta: int) -> None:
        step = self.step
        if step is not None:
            self.action_jump(step.round_index + delta)

    def action_toggle_stacks(self) -> None:
        self.every_stack = not self.every_stack
        self.show_step()

    def action_scroll_side(self, direction: int) -> None:
        side = self.query_one("#replay-side", Panel)
        (side.scroll_down if direction > 0 else side.scroll_up)(animate=False)

    def action_scroll_grids(self, direction: int) -> None:
        grids = self.query_one("#replay-grids", Panel)
        (grids.scroll_right if direction > 0 else grids.scroll_left)(animate=False)

    def action_review(self) -> None:
        from .review import ReviewScreen

        self.app.push_screen(ReviewScreen(self.timeline.game, list(self.timeline.bots), self.record_title))

    def action_close(self) -> None:
        self.dismiss()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        steps, step = self.timeline.steps, self.step
        if action in ("step", "go_first", "go_last", "round", "jump") and step is None:
            return False
        if action == "step":
            return True if 0 <= self.index + parameters[0] < len(steps) else None
        if action == "round":
            return True if self.round_start(step.round_index + parameters[0]) is not None else None
        if action == "jump":
            return self.round_start(parameters[0]) is not None
        return True

    # --- drawing ------------------------------------------------------------------------
    def show_step(self) -> None:
        timeline, step = self.timeline, self.step
        self.query_one("#replay-status", Static).update(self.status_text())
        if step is None:
            self.query_one("#replay-turn", Static).update(t("replay.empty"))
            return
        moved = step.turn.moves if step.turn else ()
        # A round that scores card numbers (Competition) shows no drops, as at the table.
        splashes = None if timeline.rules.for_round(step.round_index).scores_numbers else timeline.rules.splashes
        for seat, grid in enumerate(step.grids):
            move = moved[seat] if moved else None
            marks = {move.to: "called"} if move is not None and move.to in grid else {}
            reviewed = self.marked.get((step.round_index + 1, step.turn_no, seat))
            if reviewed is not None:  # a marked decision: the grid before it, both moves drawn
                grid, marks = step.before[seat], grid_marks(step.before[seat], reviewed[1])
            self.query_one(f"#replay-grid-{seat}", GridWidget).show(grid, splashes, marks)
            self.query_one(f"#replay-title-{seat}", Static).update(self.seat_title(seat, step))
        self.query_one("#replay-turn", Static).update(self.turn_text(step))
        self.query_one("#replay-table", Static).update(self.table_text(step))
        self.query_one("#replay-stacks", Static).update(self.stacks_text(step))

    def status_text(self) -> Text:
        timeline, step = self.timeline, self.step
        text = Text(t("replay.title"), style="bold")
        if self.record_title:
            text.append(f"  {shown(self.record_title, 80)}")
        if step is not None:
            rounds = timeline.rules.rounds()
            text.append("  " + t("replay.round", round=step.round_index + 1, rounds=rounds))
            text.append("  " + t("replay.turn", turn=step.turn_no, turns=timeline.turns_in_round(step.round_index)))
        if not timeline.game.over:
            text.append("  " + t("replay.in_progress"), style="yellow")
        return text

    def seat_title(self, seat: int, step: Step) -> Text:
        timeline = self.timeline
        from ..words import bot_label

        text = Text(timeline.names[seat], style="bold")
        bot = timeline.bots[seat] if seat < len(timeline.bots) else None
        if bot:
            text.append(f" ({bot_label(bot)})", style="dim")
        if seat == step.captain:
            text.append(f" [{t('word.captain')}]", style="bold yellow")
        text.append("  " + t("replay.seat_total", total=step.totals[seat]))
        return text

    def turn_text(self, step: Step) -> Text:
        text = Text(flip_line(self.timeline, step) + "\n", style="bold")
        for line in move_lines(self.timeline, step):
            text.append(f"  {line}\n")
        for line in end_lines(self.timeline, step):
            text.append(line + "\n", style="bold green")
        for seat in range(len(self.timeline.names)):
            reviewed = self.marked.get((step.round_index + 1, step.turn_no, seat))
            if reviewed is not None:
                name, d, point = reviewed
                text.append(t("review.viewer_line", symbol=SYMBOLS[d.mark], name=shown(name, NAME_MAX),
                              mark=t("review.mark." + d.mark), cost=cost_words(d),
                              best=review_move_words(point, d.best), reason=reason_words(point, d)) + "\n",
                            style="bold")
        return text

    def table_text(self, step: Step) -> Text:
        rules, n = self.timeline.rules.for_round(step.round_index), len(self.timeline.names)
        text = Text()
        text.append(t("replay.pile", card=flip_word(step.pile[-1]) if step.pile else "-") + "\n")
        text.append(tn("replay.draw", step.draw_size) + "\n")
        discard = " ".join(flip_word(code) for code in step.discard) or "-"
        limit = rules.discard_limit(n)
        text.append(t("replay.discard", cards=discard, count=len(step.discard), limit=limit if limit is not None else "-"))
        return text

    def stacks_text(self, step: Step) -> Text:
        title = t("replay.stacks_all") if self.every_stack else t("replay.stacks_covered")
        text = Text(title + "\n", style="bold underline")
        for line in stack_lines(self.timeline, step, self.every_stack):
            text.append(line + "\n", style="" if line.startswith(" ") else "bold")
        return text


class ReplayApp(PlainKeys, App):
    """`duckcover replay FILE` on a terminal: the viewer alone; closing it ends the app."""

    ENABLE_COMMAND_PALETTE = False

    def __init__(self, timeline: Timeline, title: str = "") -> None:
        super().__init__()
        self.timeline = timeline
        self.record_title = title
        adapt(self)

    def on_mount(self) -> None:
        self.title = t("replay.title")
        self.push_screen(ReplayScreen(self.timeline, self.record_title), lambda _result: self.exit())


def replay_app(timeline: Timeline, title: str = "", lang: str | None = None) -> ReplayApp:
    """The standalone viewer, its language set before any screen is built."""
    from ...common import i18n

    i18n.set_language(lang or i18n.detect())
    return ReplayApp(timeline, title)
