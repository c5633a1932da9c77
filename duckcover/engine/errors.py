"""The engine's two kinds of refusal: text it cannot read, and a move the rules forbid here."""


class DuckError(Exception):
    """Base class of every error the engine raises on purpose. One raised with a `Refusal`
    keeps its `code` and `params`, for a UI to say it in its own language."""

    def __init__(self, message: object = "", *args: object) -> None:
        super().__init__(message, *args)
        self.code: str | None = getattr(message, "code", None)
        self.params: dict = getattr(message, "params", {})


class ParseError(DuckError, ValueError):
    """The input cannot be read: malformed JSON, a missing field, an unknown name."""


class Refusal(str):
    """Why the rules refuse a move: the English sentence (records, logs and tests read it as a
    plain str) with a stable `code` and its `params`, so a UI can say it in its own language
    without the engine knowing any (the app's catalogues hold `refusal.<code>`)."""

    def __new__(cls, code: str, text: str, **params: object) -> "Refusal":
        refusal = super().__new__(cls, text)
        refusal.code, refusal.params = code, params
        return refusal


class IllegalMoveError(DuckError, ValueError):
    """The input reads fine but the rules forbid it in this position. `code` and `params`
    come from a `Refusal` message (None and {} for the engine's plain English ones)."""

    def __init__(self, message: str, seat: int | None = None):
        super().__init__(message)
        self.seat = seat
        self.reason = message


class RulesError(DuckError, ValueError):
    """A table set-up the rules do not allow (player count, incompatible variants)."""
