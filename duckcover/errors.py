"""The engine's two kinds of refusal: text it cannot read, and a move the rules forbid here."""


class DuckError(Exception):
    """Base class of every error the engine raises on purpose."""


class ParseError(DuckError, ValueError):
    """The input cannot be read: malformed JSON, a missing field, an unknown name."""


class IllegalMoveError(DuckError, ValueError):
    """The input reads fine but the rules forbid it in this position."""

    def __init__(self, message: str, seat: int | None = None):
        super().__init__(message)
        self.seat = seat
        self.reason = message


class RulesError(DuckError, ValueError):
    """A table set-up the rules do not allow (player count, incompatible variants)."""
