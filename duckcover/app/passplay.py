"""Pass-and-play and Madness: several humans at one keyboard, each with their own animal sound.

Pure functions (no Textual): the CLI, the controller, the replay viewer and the tests share them.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..common.i18n import t
from .options import BOT_NAMES, SeatSpec

from ..common.untrusted import SOUND_MAX as MAX_SOUND  # 12 characters: a word in a log line, not a sentence


def madness_sounds() -> list[str]:
    """The suggested animal sounds, in the interface language."""
    return [word.strip() for word in t("madness.sounds").split(",") if word.strip()]


def seat_sounds(seats: Sequence[SeatSpec]) -> list[str]:
    """Every seat's sound under Madness: its own choice, else (bots too) the next free suggestion.

    Deterministic by seat order; with no choices made it is suggestion[seat], as it always was.
    """
    sounds = madness_sounds()
    taken = {spec.sound for spec in seats if spec.sound}
    free = iter([word for word in sounds if word not in taken] or sounds)
    words = []
    for seat, spec in enumerate(seats):
        if spec.sound:
            words.append(spec.sound)
        else:
            words.append(next(free, sounds[seat % len(sounds)]))
    return words


def clean_sound(text: str) -> str | None:
    """A sound (typed, or read from a record: untrusted), tidied and made printable: control
    characters as visible placeholders, at most MAX_SOUND characters; None when empty."""
    from ..common.untrusted import shown

    word = shown(" ".join(text[: MAX_SOUND * 4].split()), MAX_SOUND)
    return word or None


def add_sounds(record: dict, seats: Sequence[SeatSpec], madness: bool) -> dict:
    """Write `players[i]["sound"]` (a duckcover extension) for a Madness game."""
    if madness:
        for player, word in zip(record.get("players", []), seat_sounds(seats)):
            player["sound"] = word
    return record


def read_sounds(record: dict) -> list[str | None]:
    """`players[i]["sound"]` per seat, None where missing or not a short string."""
    players = record.get("players")
    if not isinstance(players, list):
        return []
    words = []
    for player in players:
        sound = player.get("sound") if isinstance(player, dict) else None
        words.append(clean_sound(sound) if isinstance(sound, str) else None)
    return words


def sound_of(record_sounds: Sequence[str | None], rules, seat: int) -> str:
    """The word a seat says instead of Quack, given the sounds read from a record."""
    if not rules.own_sounds:  # Madness
        return t("word.quack")
    seats = [SeatSpec(str(i), None, s) for i, s in enumerate(record_sounds)]
    if seat >= len(seats):
        seats += [SeatSpec(str(i)) for i in range(len(seats), seat + 1)]
    return seat_sounds(seats)[seat]


def human_names(text: str) -> list[str]:
    """`--humans "Ann,Ben"`: the names, or ValueError with one line."""
    names = [" ".join(part.split()) for part in text.split(",")]
    if not names or any(not name for name in names):
        raise ValueError(f"--humans takes names separated by commas, like \"Ann,Ben\", not {text!r}")
    if len({name.casefold() for name in names}) != len(names):
        raise ValueError("--humans: every player needs a different name")
    from ..common.untrusted import excerpt, name_problem

    for name in names:
        problem = name_problem(name)
        if problem:  # control characters, bytes that are not UTF-8, more than 16 characters
            raise ValueError(f"--humans: {problem}: {excerpt(name)}")
    return names


def pass_and_play_seats(humans: Sequence[str], bots: int, difficulty: str = "medium") -> list[SeatSpec]:
    """The humans first, in the order given, then `bots` bots whose names differ from theirs."""
    taken = {name.casefold() for name in humans}
    names = [name for name in BOT_NAMES if name.casefold() not in taken]
    return [SeatSpec(name) for name in humans] + [SeatSpec(names[i], difficulty) for i in range(bots)]
