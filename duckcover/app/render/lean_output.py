"""Fewer bytes to the terminal for the same picture: colour and style changes sent only when
they change, no line break where a cursor move follows, and no cell the screen already shows
(Textual repaints whole regions: a dialog opening, a grid growing, the log jumping).

Textual writes every run of text with its whole style and a reset after it
(`ESC[38;5;24;48;5;233m───ESC[0mESC[48;5;233m   ESC[0m`): over SSH, most of a frame is the same
background colour said again and again. The terminal's drawing state is followed here and only
the difference is sent, just before the text that needs it. Whatever is not understood (another
SGR code, any other escape sequence) goes out as written, with the state brought up to date
before it, so the picture is always the one Textual meant.
"""
from __future__ import annotations

import os
import re

from rich.cells import cell_len

# (attributes that are on, foreground, background); None for an unknown state
State = tuple[frozenset[str], str | None, str | None] | None
RESET: State = (frozenset(), None, None)
ATTRIBUTES = frozenset("123456789")  # bold, dim, italic, underline, blink..., strike: turned on
OFF = {"1": "22", "2": "22", "3": "23", "4": "24", "5": "25", "6": "25", "7": "27", "8": "28", "9": "29"}
# An SGR sequence, any other CSI sequence, OSC (to BEL or ST), or any other escape.
ESCAPE = re.compile(r"\x1b\[([0-9;]*)m|\x1b\[[0-9;:?<>=$ ]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?")
CURSOR_MOVES = frozenset("ABCDGHdf")
HIDE_CURSOR, SHOW_CURSOR = "\x1b[?25l", "\x1b[?25h"  # these do not care which colours are on
MOVE = re.compile(r"\x1b\[(?:(\d*);?(\d*))?[Hf]")  # to a row and column (1-based)
# Sequences that change no cell and leave the cursor where it is: private modes (but not the
# alternate screen), OSC strings, SGR. Anything else makes the stream forget the screen.
HARMLESS = ("\x1b[?25", "\x1b[?1000", "\x1b[?1003", "\x1b[?1015", "\x1b[?1006", "\x1b[?1004", "\x1b[?2004",
            "\x1b[?7", "\x1b[?2026", "\x1b[?2048", "\x1b[>", "\x1b[<", "\x1b[=", "\x1b]")
# Textual ends every line but the last with a line break, and starts every line with a move to
# where it goes: a break right before a move does nothing the move does not redo (it never
# scrolls, the last line has none), and dropping it keeps the line's colours on for the next.
LINE_BREAK_BEFORE_MOVE = re.compile(r"\r?\n(?=\x1b\[[0-9;]*[Hf])")
# A run of blanks is erased (ECH, `ESC[<n>X`: the cells take the background in force, the cursor
# stays) where that is shorter, on the terminals known to erase with the background colour
# (terminfo's `bce`: xterm and the terminals that call themselves xterm-*, which Textual's
# output assumes anyway); a blank shows only its background and these attributes.
BLANKS = re.compile(r" {5,}")
SHOWN_ON_A_BLANK = frozenset("45789")  # underline, blink, reverse, conceal... (strike: 9)
ERASES_WITH_BACKGROUND = ("xterm",)


class _Memo(dict):
    """A bounded memo for the two pure functions below: a frame has thousands of style changes
    between a few dozen styles, and parsing them again was a tenth of a frame's cost."""

    LIMIT = 4096

    def remember(self, key, value):
        if len(self) >= self.LIMIT:
            self.clear()
        self[key] = value
        return value


_PARSED, _CHANGES = _Memo(), _Memo()


def parse(params: str, state: State) -> State:
    """The state after `ESC[<params>m` from `state`; None if not understood."""
    key = (params, state)
    if key in _PARSED:
        return _PARSED[key]
    return _PARSED.remember(key, _parse(params, state))


def _parse(params: str, state: State) -> State:
    codes = params.split(";") if params else ["0"]
    attrs, fg, bg = state if state is not None else (None, None, None)
    index = 0
    while index < len(codes):
        code = codes[index]
        if code in ("0", ""):
            attrs, fg, bg = frozenset(), None, None
        elif attrs is None:  # a change to an unknown state stays unknown
            return None
        elif code in ATTRIBUTES:
            attrs = attrs | {code}
        elif code in ("38", "48"):
            size = {"5": 3, "2": 5}.get(codes[index + 1] if index + 1 < len(codes) else "", 0)
            colour = ";".join(codes[index:index + size])
            if not size or index + size > len(codes) or not all(c.isdigit() for c in codes[index:index + size]):
                return None
            fg, bg = (colour, bg) if code == "38" else (fg, colour)
            index += size - 1
        elif code == "39":
            fg = None
        elif code == "49":
            bg = None
        elif code.isdigit() and (30 <= int(code) <= 37 or 90 <= int(code) <= 97):
            fg = code
        elif code.isdigit() and (40 <= int(code) <= 47 or 100 <= int(code) <= 107):
            bg = code
        else:
            return None
        index += 1
    return attrs, fg, bg


def change(have: State, want: State) -> str:
    """The shortest SGR sequence from `have` to `want`: the differences (an attribute turned
    off by its own code), or a reset and the whole style."""
    if have == want or want is None:
        return ""
    key = (have, want)
    if key in _CHANGES:
        return _CHANGES[key]
    return _CHANGES.remember(key, _change(have, want))


def _change(have: State, want: State) -> str:
    whole = sgr(["0", *codes_between(RESET, want)])
    if have is None:
        return whole
    return min(sgr(codes_between(have, want)), whole, key=len)


def codes_between(have: State, want: State) -> list[str]:
    off = {OFF[code] for code in have[0] - want[0]}
    # 22 turns off bold and dim alike: whichever of them stays is turned on again
    on = want[0] - have[0] | (want[0] & {"1", "2"} if "22" in off else set())
    codes = sorted(off) + sorted(on)
    if want[1] != have[1]:
        codes.append(want[1] or "39")
    if want[2] != have[2]:
        codes.append(want[2] or "49")
    return codes


def sgr(codes: list[str]) -> str:
    return "\x1b[" + ";".join(codes) + "m"


def skip(cells: int) -> str:
    """The cursor moved `cells` to the right."""
    return f"\x1b[{cells}C" if cells > 1 else "\x1b[C"


def skip_length(cells: int) -> int:
    return 3 if cells == 1 else 3 + len(str(cells))


def move(at: tuple[int, int] | None, to: tuple[int, int]) -> str:
    """The shortest sequence taking the cursor from `at` (None: not known) to `to`: absolute,
    or up or down and then right, to the line's start (CR) or to a column. After a character
    in the last column the cursor is not where `at` says (one further), so a move left is never
    counted from it."""
    x, y = to
    absolute = f"\x1b[{y + 1}H" if x == 0 else f"\x1b[{y + 1};{x + 1}H"
    if at is None:
        return absolute
    across, down = x - at[0], y - at[1]
    rows = "" if not down else "\x1b[" + (str(abs(down)) if abs(down) > 1 else "") + ("B" if down > 0 else "A")
    columns = "" if not across else skip(across) if across > 0 else "\r" if x == 0 else f"\x1b[{x + 1}G"
    return min(rows + columns, absolute, key=len)


class LeanStream:
    """Rewrites what is written to one terminal, following its drawing state across writes.

    It also keeps what each cell of the screen shows (a character and its style, as written
    through this stream): a cell Textual paints again with the same character and style is not
    sent; the cursor skips it. Whatever this cannot follow (erasing, scrolling, a character
    not one cell wide, a move it does not track) makes it forget the cells concerned, which
    are then sent as written. A resize must call `forget` (the terminal may have redrawn)."""

    def __init__(self, erase: bool = False) -> None:
        self.erase = erase  # runs of blanks may be erased (see BLANKS)
        self.have: State = RESET  # what the terminal has
        self.want: State = RESET  # what the next text needs
        # What the terminal shows, row by row: characters ("\0" where unknown) and their styles.
        self.chars: dict[int, list[str]] = {}
        self.styles: dict[int, list[State]] = {}
        self.cursor: tuple[int, int] | None = None  # where Textual's next character goes
        self.at: tuple[int, int] | None = None  # where the terminal's cursor is
        # Blanks at the end of what was drawn, not sent yet: (column, row, cells), the terminal's
        # cursor standing at their start with their background on. Sent before anything else
        # (see send_blanks), once what follows tells whether spaces or an erase is shorter.
        self.blanks: tuple[int, int, int] | None = None
        self.cursor_hidden = False  # (`ESC[?25l`): where the cursor stands between writes is unseen

    def forget(self) -> None:
        """Nothing on the screen is known: the next frame is sent whole."""
        self.chars.clear()
        self.styles.clear()
        self.cursor = self.at = None

    def lean(self, data: str) -> str:
        data = LINE_BREAK_BEFORE_MOVE.sub("", data)
        out: list[str] = []
        position = 0
        placed = False  # the last thing written was a move: the cursor is meant to stand there
        for match in ESCAPE.finditer(data):
            if match.start() > position:
                self.text(data[position:match.start()], out)
                placed = False
            position = match.end()
            sequence = match.group(0)
            if match.group(1) is not None:
                wanted = parse(match.group(1), self.want)
                if wanted is None:  # not understood: as written
                    self.settle(out)
                    out.append(sequence)
                    self.have = self.want = None
                else:
                    self.want = wanted
                continue
            move = MOVE.fullmatch(sequence)
            if move:
                self.cursor = (int(move.group(2) or 1) - 1, int(move.group(1) or 1) - 1)
                placed = True
                continue
            self.place(out)
            if not sequence.startswith(HARMLESS):  # erasing, scrolling, a move not followed...
                self.forget()
            if sequence[-1:] not in CURSOR_MOVES or sequence[1:2] != "[":
                self.settle(out)  # erasing, modes, titles...: with the state Textual meant
            out.append(sequence)
            if sequence.startswith("\x1b[") and sequence.endswith("m"):  # an SGR not parsed
                self.have = self.want = None
            elif sequence in (HIDE_CURSOR, SHOW_CURSOR):
                self.cursor_hidden = sequence == HIDE_CURSOR
            placed = False
        if position < len(data):
            self.text(data[position:], out)
            placed = False
        if placed and not self.cursor_hidden:  # (hidden, it is moved when next needed)
            self.place(out)
        # The style Textual ends a write with is not sent (a reset, each frame): a style in force
        # shows nowhere until text or an erase needs one, and before those, and before any other
        # sequence (leaving the alternate screen, at the end), the stream sends what is wanted.
        self.send_blanks(out)
        return "".join(out)

    def text(self, text: str, out: list[str]) -> None:
        """Characters drawn from the cursor on; those the screen already shows are skipped."""
        if self.cursor is None or not text.isprintable() or cell_len(text) != len(text):
            for char in text:
                self.odd_char(char, out)
            return
        x, y = self.cursor
        end = x + len(text)
        chars, styles = self.row(y, end)
        shown = "".join(chars[x:end])
        if shown == text and styles[x:end].count(self.want) == len(text) and self.want is not None:
            self.cursor = (end, y)  # all of it is on screen already
        elif shown.count("\0") == len(text) or self.want is None:  # none of it is: the whole run
            self.draw(text, out, x, y)
        else:
            for start, stop in self.runs_to_draw(text, chars[x:end], styles[x:end]):
                self.draw(text[start:stop], out, x + start, y)
            self.cursor = (end, y)

    def runs_to_draw(self, text: str, chars: list[str], styles: list[State]) -> list[tuple[int, int]]:
        """(start, stop) of the runs of `text` that differ from the cells under it; a gap of
        cells already shown between two runs is drawn again where its characters take fewer
        bytes than the cursor's skip over them (`ESC[C` is three bytes, a letter one)."""
        runs: list[list[int]] = []
        for index, char in enumerate(text):
            if chars[index] == char and styles[index] == self.want:
                continue
            if runs and runs[-1][1] == index:
                runs[-1][1] = index + 1
            elif runs and len(text[runs[-1][1]:index].encode()) <= skip_length(index - runs[-1][1]):
                runs[-1][1] = index + 1
            else:
                runs.append([index, index + 1])
        return [(start, stop) for start, stop in runs]

    def draw(self, text: str, out: list[str], x: int, y: int) -> None:
        """Send `text` (one cell per character) to be drawn at (x, y)."""
        end = x + len(text)
        erasable = self.erase and self.want is not None and not self.want[0] & SHOWN_ON_A_BLANK
        if erasable and not text.strip(" ") and self.more_blanks(x, y):
            self.blanks = (self.blanks[0], y, self.blanks[2] + len(text))
        else:
            self.cursor = (x, y)
            self.place(out)
            if text.strip(" "):
                self.settle(out)
            else:
                self.settle_blank(out)
            body = text.rstrip(" ") if erasable else text
            if erasable and "     " in body:
                self.draw_erasing(body, out, x, y)
            else:
                out.append(body)
                self.at = (x + len(body), y)
            if len(body) < len(text):
                self.blanks = (x + len(body), y, len(text) - len(body))
        chars, styles = self.row(y, end)
        chars[x:end] = text if self.want is not None else "\0" * len(text)
        styles[x:end] = [self.want] * len(text)
        self.cursor = (end, y)

    def draw_erasing(self, text: str, out: list[str], x: int, y: int) -> None:
        """`text` (no blank at its end: see send_blanks) sent with its long runs of blanks erased
        and skipped where that takes fewer bytes."""
        done = 0  # the text sent so far
        for run in BLANKS.finditer(text):
            cells = len(run.group())
            erase = f"\x1b[{cells}X"
            if len(erase) + skip_length(cells) >= cells:
                continue
            out.append(text[done:run.start()])
            out.append(erase + skip(cells))
            done = run.end()
        out.append(text[done:])
        self.at = (x + len(text), y)

    def row(self, y: int, end: int) -> tuple[list[str], list[State]]:
        chars, styles = self.chars.setdefault(y, []), self.styles.setdefault(y, [])
        if len(chars) < end:
            chars.extend("\0" * (end - len(chars)))
            styles.extend([None] * (end - len(styles)))
        return chars, styles

    def odd_char(self, char: str, out: list[str]) -> None:
        """A character this does not follow cell by cell (wide, combining, a control, or with
        the cursor unknown): sent as written, and the cells around it (or the whole screen, when
        it may move the cursor) forgotten."""
        if char == "\x07":  # the bell: no cell, no move
            out.append(char)
            return
        if self.cursor is None or not char.isprintable():  # a line break, a tab...
            self.settle(out)
            out.append(char)
            self.forget()
            return
        x, y = self.cursor
        width = cell_len(char)
        self.place(out)
        self.settle(out)
        out.append(char)
        chars, styles = self.row(y, x + max(width, 1) + 1)
        for cell in range(max(0, x - 1), x + max(width, 1) + 1):
            chars[cell], styles[cell] = "\0", None
        self.cursor = self.at = (x + width, y)

    def more_blanks(self, x: int, y: int) -> bool:
        """Blanks drawn at (x, y) go on the blanks not sent yet: they follow them, and they
        look the same (a blank shows its background and SHOWN_ON_A_BLANK only)."""
        if self.blanks is None or (self.blanks[0] + self.blanks[2], self.blanks[1]) != (x, y):
            return False
        have, want = self.have, self.want
        return have is not None and have[2] == want[2] and have[0] & SHOWN_ON_A_BLANK == want[0] & SHOWN_ON_A_BLANK

    def send_blanks(self, out: list[str], then: tuple[int, int] | None = None) -> None:
        """The blanks not sent yet, the shortest way given where the cursor goes `then` (None:
        not known): spaces, or an erase (`ESC[<n>X`: the cursor stays at their start), with a
        skip over them when the next text follows them."""
        if self.blanks is None:
            return
        x, y, cells = self.blanks
        self.blanks = None
        erase, end = f"\x1b[{cells}X", (x + cells, y)
        if then == end:
            sent, self.at = min(" " * cells, erase + skip(cells), key=len), end
        elif len(erase) < cells:
            sent, self.at = erase, (x, y)
        else:
            sent, self.at = " " * cells, end
        out.append(sent)

    def place(self, out: list[str]) -> None:
        """Bring the terminal's cursor to Textual's, the shortest way."""
        self.send_blanks(out, self.cursor)
        if self.cursor is None or self.cursor == self.at:
            return
        out.append(move(self.at, self.cursor))
        self.at = self.cursor

    def settle(self, out: list[str]) -> None:
        self.send_blanks(out)
        out.append(change(self.have, self.want))
        self.have = self.want

    def settle_blank(self, out: list[str]) -> None:
        """Before blanks: only what shows on a blank (its background, SHOWN_ON_A_BLANK) is made
        what Textual wants; the foreground, bold and the like stay as they are, for the next
        text to change if it needs to (Textual says them again around every run of padding)."""
        self.send_blanks(out)
        have, want = self.have, self.want
        if have is None or want is None:
            self.settle(out)
            return
        blank = ((have[0] - SHOWN_ON_A_BLANK) | (want[0] & SHOWN_ON_A_BLANK), have[1], want[2])
        out.append(change(have, blank))
        self.have = blank


def new_stream() -> LeanStream:
    """A stream for the terminal this process writes to (its TERM says whether it erases)."""
    return LeanStream(erase=os.environ.get("TERM", "").startswith(ERASES_WITH_BACKGROUND))


def lean_driver(base: type) -> type:
    """`base` (a Textual driver class) writing through a LeanStream."""

    class LeanDriver(base):
        # Write from the app's own thread, not Textual's writer thread (set for the SSH guest's
        # client, which shares 2 cores with 47 others: a frame handed to another thread goes out
        # only when that thread is scheduled and gets the interpreter's lock, a second wait).
        direct = False

        def write(self, data: str) -> None:
            stream = self.__dict__.get("_lean") or self.__dict__.setdefault("_lean", new_stream())
            text = stream.lean(data)
            if self.direct:
                self.write_now(text)
            else:
                super().write(text)

        def write_now(self, text: str) -> None:
            """Every write of a direct driver goes here from its first (the writer thread never
            holds one, so the order is kept). A terminal that cannot take it blocks the app, as
            the writer thread's full queue would; a closed one (the session ended) takes nothing."""
            if self.__dict__.get("_closed"):
                return
            data = memoryview(text.encode("utf-8", "replace"))
            try:
                fd = self._file.fileno()
                while data:
                    data = data[os.write(fd, data):]
            except (OSError, ValueError):
                self._closed = True

        def forget_screen(self) -> None:
            """The terminal was resized (it may have redrawn): send the next frame whole."""
            (self.__dict__.get("_lean") or self.__dict__.setdefault("_lean", new_stream())).forget()

    LeanDriver.__name__ = LeanDriver.__qualname__ = f"Lean{base.__name__}"
    return LeanDriver


def forget_terminal(app) -> None:
    """The app's terminal was resized (it may have redrawn): its lean driver, if it has one,
    sends the next frame whole."""
    forget = getattr(app._driver, "forget_screen", None)
    if forget is not None:
        forget()
