"""The setup screen's pass-and-play parts: a Madness sound per human seat, the hand-over switch.

Both stay hidden until they matter (a sound row once Madness is ticked and the seat is human,
the hand-over switch once two seats are human), so a plain game's setup looks as before.
"""
from __future__ import annotations

from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Checkbox, Input, Label, Select

from ...common.i18n import t
from ...engine.rules import APP_VARIANTS
from ...engine.variants import BY_NAME
from ..passplay import MAX_SOUND, clean_sound, madness_sounds


def sound_row(seat: int) -> Horizontal:
    """An input with the suggested animal sounds (Tab or Right takes the suggestion)."""
    from textual.suggester import SuggestFromList

    sounds = madness_sounds()
    field = Input(placeholder=sounds[seat % len(sounds)], max_length=MAX_SOUND, id=f"sound-{seat}",
                  classes="seat-name", suggester=SuggestFromList(sounds, case_sensitive=False))
    return Horizontal(Label(t("setup.sound"), classes="setup-label"), field,
                      classes="setup-row sound-row", id=f"sound-row-{seat}")


def handover_switch() -> Checkbox:
    return Checkbox(t("setup.handover"), value=True, id="handover", classes="variant")


def is_human(screen: Screen, seat: int) -> bool:
    return screen.query_one(f"#kind-{seat}", Select).value == "human"


SOUND_VARIANTS = tuple(name for name in APP_VARIANTS if BY_NAME[name].own_sounds)  # Madness


def madness_on(screen: Screen) -> bool:
    """Is a variant ticked under which players choose their own sound instead of Quack?"""
    return any(screen.query_one(f"#variant-{name}", Checkbox).value for name in SOUND_VARIANTS)


def show_passplay(screen: Screen, count: int) -> None:
    """Show the sound rows and the hand-over switch where they apply."""
    madness = madness_on(screen)
    humans = 0
    for row in screen.query(".sound-row"):
        seat = int(row.id.rsplit("-", 1)[1])
        human = seat < count and is_human(screen, seat)
        humans += human
        row.display = human and madness
    screen.query_one("#handover", Checkbox).display = humans > 1


def chosen_sound(screen: Screen, seat: int) -> str | None:
    """The seat's own sound, or None (bots, no Madness, nothing typed: a default is assigned)."""
    if not madness_on(screen) or not is_human(screen, seat):
        return None
    return clean_sound(screen.query_one(f"#sound-{seat}", Input).value)


def handover_wanted(screen: Screen) -> bool:
    return screen.query_one("#handover", Checkbox).value
