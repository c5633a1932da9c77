"""What the table screen costs on each draw (issue 22). Every SSH session is a client process
that redraws its table on each reveal, flip and status message, so a redraw finds its widgets
without searching the screen again (a CSS query walks every widget of the screen)."""
from textual.dom import DOMNode

from autoplay import step, table_of
from duckcover.app import AppOptions, create_app, quick_seats


async def test_a_redraw_of_the_table_searches_no_widget_once_the_table_is_drawn(tmp_path, monkeypatch):
    app = create_app(AppOptions(seats=quick_seats(3, "Connie"), seed=1, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False, save=False))
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(60):  # a few turns in: every part of the table has been drawn
            await step(pilot)
            table = table_of(app)
            if table is not None and table.ctl.game.turn_number >= 2 and table.chooser is not None:
                break
        assert table is not None and table.ctl.game.turn_number >= 2 and table.chooser is not None
        searches: list[tuple] = []
        query, query_one = DOMNode.query, DOMNode.query_one
        monkeypatch.setattr(DOMNode, "query", lambda node, *args, **kw: searches.append(args) or query(node, *args, **kw))
        monkeypatch.setattr(DOMNode, "query_one",
                            lambda node, *args, **kw: searches.append(args) or query_one(node, *args, **kw))
        table.refresh_table()
        table.set_prompt("A prompt the screen has not shown yet")
        table.log_line("A line the log has not shown yet")
        monkeypatch.undo()
        assert searches == []
        assert "A prompt the screen has not shown yet" in str(table.query_one("#prompt").render())
