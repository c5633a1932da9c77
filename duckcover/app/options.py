"""What the app is started with: the CLI and the tests build the same `AppOptions`."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..engine.rules import Rules
from ..players.difficulty import BOT_NAMES
from ..players.sequence import SPEEDS  # noqa: F401 - the speeds (and their pauses) are the sequencer's


@dataclass(frozen=True)
class SeatSpec:
    """One seat: a human (bot is None) or a bot spec (difficulty or any installed bot)."""

    name: str
    bot: str | None = None
    sound: str | None = None  # Madness: the word said instead of Quack (None: a default)

    @property
    def human(self) -> bool:
        return self.bot is None


@dataclass
class AppOptions:
    seats: list[SeatSpec] | None = None  # None: open the title screen
    rules: Rules = field(default_factory=Rules)
    seed: int | None = None
    speed: str = "normal"
    lang: str | None = None  # None: i18n.detect()
    mouse: bool = True
    resume: bool = False
    resume_path: Path | None = None  # with resume: this game's file (None: the most recent one)
    data_dir: Path | None = None  # None: duckcover.saves.paths.data_dir()
    watch: bool = False
    handover: bool = True  # pass-and-play: a hand-over screen before each human's private choice
    save: bool = True  # write the game record after every turn
    stats: bool = True  # add finished games to the statistics database
    # `--resume`: the saved record and its game, already read and replayed by the command line
    # (the app continues from them rather than replaying the record a second time).
    resumed: tuple[dict, object] | None = None
    # Bot specs named on the command line: the only files or module paths a game may run (a
    # saved game's bot labels run only as installed bots).
    named_bots: tuple[str, ...] = ()


def quick_seats(bots: int, name: str | None, difficulty: str = "medium", watch: bool = False) -> list[SeatSpec]:
    """`--bots N`: you plus N bots; `--watch`: every seat a bot."""
    from ..common.i18n import t

    seats = [] if watch else [SeatSpec(name or t("seat.you"))]
    taken = {seats[0].name} if seats else set()
    names = [n for n in BOT_NAMES if n not in taken]
    seats += [SeatSpec(names[i], difficulty) for i in range(bots)]
    return seats
