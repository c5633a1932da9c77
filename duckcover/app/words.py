"""Names the app shows for things the engine knows by id: bot difficulties and variants."""
from __future__ import annotations

from ..common.i18n import DEFAULT, catalogue, singular, t
from ..common.untrusted import LABEL_MAX, shown
from ..engine.cards import MAX, REPEAT

VALUE_MAX = 160  # characters of one value in a refusal (the list of known variants fits)
from .bots import DIFFICULTY_NAMES


def bot_label(spec: str) -> str:
    """A difficulty in the player's language; any other bot by its own (untranslated) name."""
    return t(f"level.{spec}") if spec in DIFFICULTY_NAMES else spec


def player_title(key: str, name: str | None = None) -> str:
    """One name for a rated player on every screen and in `stats`: a bot by its difficulty and
    the bot it stands for ("Medium (greedy)", what the set-up screen offers), with its version
    only when it is not the one measured ("Medium (greedy@2)"); any other bot marked as a bot;
    a person by `name` (else the key's), the nameless player in the player's language."""
    from ..common.i18n import shown_name
    from ..common.measured import MEASURED_BOTS
    from ..players.difficulty import level_of
    from ..saves.ratings import bot_of, label_of

    bot = bot_of(key)
    if bot is None:
        return shown_name(name if name is not None else label_of(key))
    bot_name, version = bot
    level = level_of(bot_name)
    measured = MEASURED_BOTS.get(bot_name)
    label = bot_name if measured is not None and measured[0] == version else label_of(key)
    return t(f"difficulty.{level}", bot=label) if level else t("stats.rating_bot", name=label)


def rating_number(ordinal: float) -> str:
    """A rating as every screen writes it: one decimal, the language's decimal sign (and never
    "-0.0")."""
    from ..common.i18n import local_number

    return local_number(ordinal, 1)


def rating_change(change: float) -> str:
    """How far a rating moved, signed, one decimal: a move too small to show is "+0.0", not "-0.0"."""
    from ..common.i18n import local_number

    text = local_number(change, 1, signed=True)
    return text if text[0] in "+-" else "+" + text


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
    return coded_text(code, reason.params)


def coded_text(code: str, params: dict) -> str:
    """`refusal.<code>` with its values: lists joined with "or", a variant by its name, any
    other text escaped and bounded (a value may quote a record or a peer), and the `.one`
    form where `count` asks for the singular."""
    joined = f" {t('refusal.or')} "
    values = {k: joined.join(map(str, v)) if isinstance(v, (tuple, list)) else v for k, v in params.items()}
    values = {k: shown(v, VALUE_MAX) if isinstance(v, str) else v for k, v in values.items()}
    if "variant" in values:
        values["variant"] = variant_label(str(values["variant"]))
    key = f"refusal.{code}"
    if isinstance(values.get("count"), int) and singular(values["count"]) and f"{key}.one" in catalogue(DEFAULT):
        key = f"{key}.one"
    return t(key, **values)


def peer_refusal_text(message: dict, limit: int = LABEL_MAX * 2) -> str:
    """An "error" or "bye" from the server, in the player's language where it carries a code
    this app knows and values that fit it; else its English text. Everything a peer sent is
    untrusted: shown escaped and bounded."""
    text = shown(message.get("text"), limit)
    code, params = message.get("code"), message.get("params", {})
    if not (isinstance(code, str) and f"refusal.{code}" in catalogue(DEFAULT) and isinstance(params, dict)):
        return text
    values = {key: value for key, value in params.items()
              if isinstance(key, str) and (type(value) is int or isinstance(value, str)
                                           or (isinstance(value, list) and len(value) <= 12
                                               and all(type(v) in (int, str) for v in value)))}
    try:
        return shown(coded_text(code, values), limit)
    except (KeyError, IndexError, ValueError, TypeError):  # values that do not fit this app's text
        return text


def error_text(err: Exception) -> str:
    """An engine error as the player reads it: in their language where it carries a code
    (a `Refusal`), else as the engine wrote it."""
    from ..saves.record import RecordError

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
    text = coded_text(err.code, err.params)
    text = t("record.where", where=", ".join(where), reason=text) if where else text
    return f"{err.file}: {text}" if err.file else text
