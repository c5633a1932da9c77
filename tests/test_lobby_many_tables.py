"""A club's lobby at the smallest terminal: more tables than fit on 80x24 scroll under a title
that stays (who you are and where), and the keys still reach every table."""
from __future__ import annotations

from test_app_table_facts import screen_lines
from test_serve_snapshots import Scripted

CLUB = [{"id": f"t{n}", "name": f"h{n}'s table", "seats": 4, "taken": 4, "humans": 4, "bots": 0, "variants": [],
         "state": "playing", "free": [], "rated": True} for n in range(30)]


async def test_thirty_tables_at_80x24_scroll_under_the_title_and_the_last_is_reached_by_keys(tmp_path):
    from textual.widgets import DataTable

    app = Scripted(tmp_path, [{"type": "welcome", "name": "ann"}, {"type": "lobby", "tables": CLUB}])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        grid = app.screen.query_one("#tables", DataTable)
        assert grid.row_count == 30
        await pilot.press(*["down"] * 29)  # a player walks the list to its end
        await pilot.pause()
        lines = screen_lines(app)  # what the terminal shows, line by line
        assert lines[0].startswith("Tables on this server (you are ann)")  # the title did not scroll away
        assert any("h29's table" in line for line in lines), "\n".join(lines)  # the last table is on screen
        assert app.screen.chosen()["id"] == "t29"
