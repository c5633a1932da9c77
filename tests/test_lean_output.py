"""The lean output sends fewer bytes for the same picture: every character is drawn with the
style Textual gave it, and everything else Textual writes goes out unchanged."""
import os
import re
from functools import lru_cache
from itertools import repeat

from hypothesis import given
from hypothesis import strategies as st
from rich.color import Color
from rich.style import Style

from duckcover.app.render.lean_output import LeanStream, lean_driver, move

COLOURS = [None, "color(24)", "color(233)", "red", "bright_white", "#102030"]


# An escape sequence (its parameters and final character), a carriage return, or a run of
# characters printed with the same codes.
_TOKEN = re.compile(r"\x1b\[([^@-~]*)([@-~])|(\r)|([^\x1b\r]+|\x1b(?!\[))|(\x1b\[)")


def painted(stream: str, attrs: dict[str, str] | None = None) -> list[tuple[str, frozenset]]:
    """Each character printed and the SGR codes in force for it, read as a terminal would
    (an interpreter of its own, not the one under test). `attrs`: the codes in force before
    (none if not given), updated to those in force after."""
    attrs = {} if attrs is None else attrs
    cells = []
    for match in _TOKEN.finditer(stream):
        parameters, final, carriage_return, text, unfinished = match.groups()
        if unfinished:
            raise ValueError(f"an escape sequence without its end at {match.start()}")
        if text is not None:  # (the codes in force are the same for the whole run)
            cells.extend(zip(text, repeat(frozenset(attrs.items()))))
        elif carriage_return:
            cells.append(("column", 1))
        elif final == "m":
            codes = (parameters or "0").split(";")
            i = 0
            while i < len(codes):
                code = codes[i]
                if code == "0":
                    attrs.clear()
                elif code in ("38", "48"):
                    take = 3 if codes[i + 1] == "5" else 5
                    attrs[code] = ";".join(codes[i:i + take])
                    i += take - 1
                elif code in ("22", "23", "24", "25", "27", "28", "29"):
                    for on in ("1", "2") if code == "22" else (code[1], "6") if code == "25" else (code[1],):
                        attrs.pop(on, None)
                elif code in ("39", "49"):
                    attrs.pop("38" if code == "39" else "48", None)
                elif 30 <= int(code) <= 37 or 90 <= int(code) <= 97:
                    attrs["38"] = code
                elif 40 <= int(code) <= 47 or 100 <= int(code) <= 107:
                    attrs["48"] = code
                else:
                    attrs[code] = code
                i += 1
        elif final == "H":
            cells.append(("move", match.group()))
        elif final in "ABC":  # up, down, right
            cells.append(({"A": "up", "B": "down", "C": "forward"}[final], int(parameters or 1)))
        elif final == "G":  # to a column
            cells.append(("column", int(parameters or 1)))
        elif final == "X":  # erased with the background in force; the cursor stays
            cells.append(("erase", int(parameters or 1), frozenset(attrs.items())))
    return cells


def rich_written(segments: list[tuple[str, Style]]) -> str:
    """Runs of text as Textual writes them: each with its whole style, then a reset."""
    return "".join(style.render(text, color_system="256") for text, style in segments)


styles = st.builds(Style, color=st.sampled_from(COLOURS), bgcolor=st.sampled_from(COLOURS),
                   bold=st.booleans(), dim=st.booleans(), reverse=st.booleans(), underline=st.booleans())
segments = st.lists(st.tuples(st.text("ab ─\n", min_size=1, max_size=4), styles), max_size=12)


@given(st.lists(segments, min_size=1, max_size=3))
def test_every_character_keeps_its_style(writes):
    stream = LeanStream()
    original = "".join(rich_written(write) for write in writes)
    lean = "".join(stream.lean(rich_written(write)) for write in writes)
    assert shows(lean) == shows(original)
    assert len(lean) <= len(original)


def test_a_style_turned_off_by_its_own_code_not_a_reset():
    background = Style(bgcolor=Color.from_ansi(233))
    written = rich_written([("Round 1", background + Style(bold=True, dim=True)), ("  ", background + Style(dim=True)),
                            ("x", background)])
    lean = LeanStream().lean(written)
    assert "\x1b[22;2m" in lean and "\x1b[0;48;5;233m" not in lean
    assert shows(lean) == shows(written)


@given(st.lists(st.tuples(st.text("ab ─", min_size=1, max_size=4), styles), max_size=12), st.integers(1, 40))
def test_a_line_break_before_a_move_is_dropped_and_keeps_the_colours(lines, row):
    """Textual's lines each begin with a move; the break between them moves nothing."""
    written = "\n".join(f"\x1b[{row + index};3H" + rich_written([segment]) for index, segment in enumerate(lines))
    lean = LeanStream().lean(written)
    assert "\n" not in lean
    assert shows(lean) == shows(written)


def test_the_background_said_once_for_a_row_of_runs():
    background = Style(bgcolor=Color.from_ansi(233))
    written = rich_written([("──", background + Style(color="color(24)")), ("   ", background),
                            ("Round 1", background + Style(bold=True))])
    lean = LeanStream().lean(written)
    assert lean.count("48;5;233") == 1
    assert shows(lean) == shows(written)


def test_blanks_leave_the_foreground_and_bold_as_they_are():
    background = Style(bgcolor=Color.from_ansi(233))
    name = background + Style(bold=True, color="color(24)")
    written = "\x1b[1;1H" + rich_written([("Jackson", name), ("  ", background), ("Gwen", name)])
    lean = LeanStream().lean(written)
    assert lean.count("\x1b[") == 2  # the move and the name's style: nothing around the blanks
    assert shows(lean) == shows(written)


def test_other_sequences_go_out_as_written_with_the_state_textual_meant():
    written = "\x1b[48;5;1mA\x1b[0m\x1b[2J\x1b]0;title\x07\x1b[?1049h\x1b[4:3mB\x1b[0mC"
    lean = LeanStream().lean(written)
    for sequence in ("\x1b[2J", "\x1b]0;title\x07", "\x1b[?1049h", "\x1b[4:3m"):
        assert sequence in lean
    assert lean.index("\x1b[0m") < lean.index("\x1b[2J")  # erasing: with the reset before it
    assert lean.endswith("\x1b[0mC")  # after an SGR it cannot follow, a whole reset


class Recorder:
    """A driver stand-in that keeps what it is given to write."""

    def __init__(self):
        self.written = []

    def write(self, data):
        self.written.append(data)


def test_the_driver_class_writes_through_the_stream():
    driver = lean_driver(Recorder)()
    driver.write("\x1b[48;5;1mA\x1b[0m\x1b[48;5;1mB\x1b[0m")
    assert driver.written == ["\x1b[48;5;1mAB"]  # (the reset at the end: when something needs it)
    assert type(driver).__name__ == "LeanRecorder"


@lru_cache(maxsize=None)  # (a few backgrounds, asked for on every blank cell)
def blank(attrs: frozenset) -> tuple[str, frozenset]:
    """A blank cell as it looks: its background, and the attributes a blank shows."""
    return " ", frozenset((code, value) for code, value in attrs if code == "48" or code in "45789")


def shows(stream: str) -> dict:
    """What a terminal shows after `stream` alone, cell by cell."""
    return cells_of(screen_after(stream))


def cells_of(screen: dict) -> dict:
    """A screen's cells, without where the cursor stands and the style in force."""
    return {cell: what for cell, what in screen.items() if cell not in ("cursor", "style")}


def screen_after(stream: str, screen: dict | None = None) -> dict:
    """What a terminal shows after `stream`: (column, row) -> (character, codes in force), read
    with the interpreter above (an absolute move, then characters left to right)."""
    screen = dict(screen or {})
    x, y = screen.pop("cursor", (0, 0))  # the cursor stays where a write left it
    attrs = dict(screen.pop("style", {}))  # and the style in force
    for cell in painted(stream, attrs):
        if cell[0] == "move":
            row, _, column = cell[1][2:-1].partition(";")
            x, y = int(column or 1) - 1, int(row or 1) - 1
        elif cell[0] == "forward":
            x += cell[1]
        elif cell[0] in ("up", "down"):
            y += cell[1] if cell[0] == "down" else -cell[1]
        elif cell[0] == "column":
            x = cell[1] - 1
        elif cell[0] == "\n":  # a line break (the terminal adds the carriage return)
            x, y = 0, y + 1
        elif cell[0] == "erase":
            screen.update({(x + i, y): blank(cell[2]) for i in range(cell[1])})
        else:
            screen[(x, y)] = blank(cell[1]) if cell[0] == " " else cell
            x += 1
    return {**screen, "cursor": (x, y), "style": frozenset(attrs.items())}


line_writes = st.lists(st.tuples(st.integers(1, 4), st.integers(1, 6),
                                 st.lists(st.tuples(st.text("ab ─", min_size=1, max_size=4)
                                                    | st.sampled_from([" " * 7, "a" + " " * 12 + "b", " " * 20]),
                                                    styles), max_size=4)),
                       min_size=1, max_size=4)


@given(st.lists(line_writes, min_size=1, max_size=5), st.booleans())
def test_cells_the_screen_already_shows_are_not_sent_and_the_screen_is_the_same(frames, erase):
    stream = LeanStream(erase=erase)
    original = lean = {}
    for frame in frames:
        written = "\n".join(f"\x1b[{row};{column}H" + rich_written(segments) for row, column, segments in frame)
        original = screen_after(written, original)
        lean = screen_after(stream.lean(written), lean)
        assert cells_of(lean) == cells_of(original)


def test_a_frame_painted_again_sends_nothing_but_a_forgotten_screen_is_sent_whole():
    stream = LeanStream()
    frame = "\x1b[1;1H" + rich_written([("Round 1", Style(bold=True)), (" begins", Style(color="color(24)"))])
    first = stream.lean(frame)
    assert "Round 1" in first
    assert "Round" not in stream.lean(frame)
    changed = stream.lean(frame.replace("1 begins", "2 begins").replace("Round 1", "Round 2"))
    assert "2" in changed and "Round" not in changed and "begins" not in changed
    stream.forget()
    again = stream.lean(frame)
    assert "Round 1" in again and "begins" in again
    stream.lean("\x1b[2J")  # erased: nothing known
    assert "Round 1" in stream.lean(frame)


def test_a_short_gap_of_cells_already_shown_is_drawn_again_where_that_is_fewer_bytes_than_skipping_it():
    stream = LeanStream()
    stream.lean("\x1b[1;1HFlip 8 3 7 with 2")
    assert stream.lean("\x1b[1;1HFlip 9 4 7 with 3") == "\x1b[6G9 4\x1b[8C3"  # a space: not ESC[C
    stream.lean("\x1b[2;1Ha\u2500\u2500b")
    assert stream.lean("\x1b[2;1Hc\u2500\u2500d") == "\rc\x1b[2Cd"  # a box line is three bytes


def test_long_runs_of_blanks_are_erased_on_a_terminal_that_erases_with_the_background():
    frame = "\x1b[1;1H\x1b[48;5;233mab" + " " * 20 + "cd" + " " * 30 + "\x1b[0m"
    assert LeanStream(erase=True).lean(frame) == "\x1b[1H\x1b[48;5;233mab\x1b[20X\x1b[20Ccd\x1b[30X"
    assert LeanStream().lean(frame) == frame.replace("1;1H", "1H").removesuffix("\x1b[0m")
    underlined = frame.replace("48;5;233m", "4;48;5;233m")
    assert "X" not in LeanStream(erase=True).lean(underlined)  # an underline shows on a blank


def test_blanks_are_sent_once_what_follows_them_is_known():
    stream = LeanStream(erase=True)
    runs = "".join(f"\x1b[38;5;{colour};48;5;233m{text}\x1b[0m" for colour, text in
                   [(1, "ab"), (2, " " * 8), (4, " " * 8), (3, "cd")])
    # two runs of blanks on one background: one erase, not two (the foreground shows on neither)
    assert stream.lean("\x1b[1;1H" + runs) == "\x1b[1H\x1b[38;5;1;48;5;233mab\x1b[16X\x1b[16C\x1b[38;5;3mcd"
    # five blanks before text: five spaces, not an erase and a skip over them (eight bytes)
    tail = "\x1b[2;1H\x1b[48;5;233mab     \x1b[0m\x1b[38;5;3;48;5;234mcd\x1b[0m"
    assert LeanStream(erase=True).lean(tail) == "\x1b[2H\x1b[48;5;233mab     \x1b[38;5;3;48;5;234mcd"
    assert shows(LeanStream(erase=True).lean("\x1b[3;1H" + runs)) == shows("\x1b[3;1H" + runs)
    assert shows(LeanStream(erase=True).lean(tail)) == shows(tail)


def test_a_hidden_cursor_is_not_parked_at_the_end_of_a_write_but_a_shown_one_is():
    stream = LeanStream()
    frame = "\x1b[3;1Hab\x1b[1;1H"  # Textual parks the cursor after each frame
    assert stream.lean(frame) == "\x1b[3Hab\x1b[1H"
    stream.lean("\x1b[?25l")
    assert stream.lean(frame.replace("ab", "cd")) == "\x1b[2Bcd"  # (down from the last park)
    assert stream.lean("\x1b[3;3Hef") == "ef"  # the cursor is where the terminal has it
    stream.lean("\x1b[?25h")
    assert stream.lean(frame.replace("ab", "gh")).endswith("\x1b[1H")


def test_the_style_a_write_ends_with_is_sent_only_when_something_needs_it():
    stream = LeanStream()
    assert stream.lean("\x1b[1;1H\x1b[48;5;233mab\x1b[0m") == "\x1b[1H\x1b[48;5;233mab"
    assert stream.lean("\x1b[1;3H\x1b[48;5;233mcd\x1b[0m") == "cd"  # the background is on still
    assert stream.lean("\x1b[?1049l") == "\x1b[0m\x1b[?1049l"  # leaving the screen: as Textual left it


def test_the_cursor_goes_the_shortest_way_and_never_left_from_past_the_last_column():
    assert move((5, 3), (5, 4)) == "\x1b[B" and move((5, 13), (9, 12)) == "\x1b[A\x1b[4C"
    assert move((30, 3), (0, 4)) == "\x1b[B\r"
    assert move((120, 3), (100, 3)) == "\x1b[101G"  # (a column, not 20 to the left: see move)
    assert move((5, 3), (60, 30)) == "\x1b[31;61H" and move(None, (0, 9)) == "\x1b[10H"


def test_a_control_character_that_may_move_the_cursor_makes_it_forget_the_screen():
    stream = LeanStream()
    frame = "\x1b[1;1H" + rich_written([("Round 1", Style(bold=True))])
    stream.lean(frame)
    stream.lean("\x1b[1;1Hab\tc")
    assert "Round 1" in stream.lean(frame)
    stream.lean("\x1b[1;1H\x07")  # a bell moves nothing and draws nothing
    assert "R" not in stream.lean(frame)


def test_the_driver_forgets_the_screen_when_told_the_terminal_was_resized():
    driver = lean_driver(Recorder)()
    frame = "\x1b[1;1H\x1b[48;5;1mDuck\x1b[0m"
    driver.write(frame)
    driver.write(frame)
    driver.forget_screen()
    driver.write(frame)
    assert ["Duck" in written for written in driver.written] == [True, False, True]


def test_a_direct_driver_writes_every_frame_itself_in_order_and_a_closed_terminal_ends_nothing():
    """The SSH guest's driver writes from the app's thread (RemoteApp sets `direct`): the
    frames reach the terminal whole and in order, without Textual's writer thread (Recorder's
    write, the thread's path, is never called); once the terminal is gone, writing is a no-op."""
    read_end, write_end = os.pipe()
    driver = lean_driver(Recorder)()
    driver.direct = True
    driver._file = os.fdopen(write_end, "w")
    frames = [f"\x1b[1;1H\x1b[48;5;{n}m{word * 400}\x1b[0m" for n, word in enumerate(("duck ", "swan ", "teal "), 1)]
    for frame in frames:
        driver.write(frame)
    received = os.read(read_end, 1 << 16).decode()
    assert driver.written == []
    assert [received.count(word) for word in ("duck", "swan", "teal")] == [400, 400, 400]
    assert received.index("duck") < received.index("swan") < received.index("teal")
    assert cells_of(screen_after(received)) == cells_of(screen_after(frames[-1]))  # the last frame shows
    os.close(read_end)  # the session ended
    driver.write(frames[0])  # EPIPE: taken, nothing raised
    driver.write(frames[1])
    assert driver.written == []
    driver._file.close()
