"""Names the app shows for things the engine knows by id: bot difficulties and variants."""
from __future__ import annotations

from ..cards import MAX, REPEAT
from ..i18n import t
from .bots import DIFFICULTY_NAMES


def bot_label(spec: str) -> str:
    """A difficulty in the player's language; any other bot by its own (untranslated) name."""
    return t(f"level.{spec}") if spec in DIFFICULTY_NAMES else spec


def variant_label(name: str) -> str:
    try:
        return t(f"variant_name.{name}")
    except KeyError:  # a variant newer than the catalogues: its id is still better than nothing
        return name


def flip_word(code: int) -> str:
    """A Captain card as the table names it: a number, Max or Repeat."""
    return t("word.max") if code == MAX else t("word.repeat") if code == REPEAT else str(code)


def refusal_text(reason: str) -> str:
    """Why the rules refuse a move, in the player's language: the engine's `Refusal` carries
    a code and values for `refusal.<code>`; any other reason is shown as the engine wrote it."""
    code = getattr(reason, "code", None)
    if code is None:
        return str(reason)
    joined = f" {t('refusal.or')} "
    values = {k: joined.join(map(str, v)) if isinstance(v, tuple) else v for k, v in reason.params.items()}
    if "variant" in values:
        values["variant"] = variant_label(str(values["variant"]))
    return t(f"refusal.{code}", **values)


def error_text(err: Exception) -> str:
    """An engine error as the player reads it: in their language where it carries a code
    (a `Refusal`), else as the engine wrote it."""
    from ..record import RecordError

    if isinstance(err, RecordError):
        return record_error_text(err)
    reason = getattr(err, "reason", None)
    if getattr(reason, "code", None) is None:
        reason = err.args[0] if err.args and getattr(err.args[0], "code", None) else None
    return refusal_text(reason) if reason is not None else str(err)


def record_error_text(err) -> str:
    """A record that cannot be read, in the player's words: the file, where in it, and why
    (the reasons with a code translated; a rule a record breaks, as the engine says it)."""
    if err.code is None:
        return str(err)
    where = [t(f"record.{label}", number=value)
             for label, value in (("round", err.round_no), ("turn", err.turn_no), ("seat", err.seat))
             if value is not None]
    text = t(f"refusal.{err.code}", **err.params)
    text = ": ".join([", ".join(where), text]) if where else text
    return f"{err.file}: {text}" if err.file else text
