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


async def test_the_table_s_text_parts_are_redrawn_by_their_watchers_only_when_they_change(tmp_path, monkeypatch):
    """What the table shows are reactive attributes: a redraw that changes nothing updates no
    text part (no repaint, no layout), a new prompt updates the prompt alone, and a new main
    seat moves every panel to its seat in the new order."""
    from duckcover.app.widgets.core import TextStatic

    app = create_app(AppOptions(seats=quick_seats(3, "Connie"), seed=1, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False, save=False))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(60):
            await step(pilot)
            table = table_of(app)
            if table is not None and table.ctl.game.turn_number >= 1 and table.chooser is not None:
                break
        assert table is not None and table.chooser is not None
        updated: list[str | None] = []
        update = TextStatic.update  # (the four text parts)
        monkeypatch.setattr(TextStatic, "update", lambda widget, *args, **kw: updated.append(widget.id) or update(widget, *args, **kw))
        table.refresh_table()
        assert updated == []
        table.set_prompt("Something new to do")
        assert updated == ["prompt"]
        table.set_prompt("Something new to do")
        assert updated == ["prompt"]  # the same prompt again: nothing to draw
        monkeypatch.undo()
        assert table.prompt_text == "Something new to do"
        before = {panel.id or panel.seat: panel.seat for panel in table.seat_panels()}
        table.main_seat = (table.main_seat + 1) % table.ctl.game.n
        own = table.query_one("#own-panel")
        assert own.seat == own.grid.seat == table.main_seat
        assert sorted(panel.seat for panel in table.seat_panels()) == sorted(before.values())
        assert [p.seat for p in table.query(".opponent")] == table.seat_order()[1:]


async def test_textuals_own_scroll_to_still_works_on_a_grid(tmp_path):
    """GridWidget's helper that keeps the cursor in view once overrode Textual's private
    Widget._scroll_to by accident: grid.scroll_to(y=1, immediate=True) raised TypeError
    (issue 29). It has a name of its own now."""
    from duckcover.app.widgets.core import GridWidget
    from textual.widget import Widget

    assert GridWidget._scroll_to is Widget._scroll_to
    app = create_app(AppOptions(seats=quick_seats(3, "Connie"), seed=1, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False, save=False))
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(20):
            await step(pilot)
            table = table_of(app)
            if table is not None and table.query(GridWidget):
                break
        grid = table_of(app).query(GridWidget).first()
        grid.scroll_to(y=1, immediate=True)  # raised TypeError while the override stood
        await pilot.pause()


async def test_the_layout_containers_are_not_drawn_and_the_table_looks_the_same_as_when_they_were(tmp_path):
    """#table, #opponents, #mine and #side have nothing to draw of their own: hidden (issue 33),
    the compositor only lays them out, while every panel in them is drawn and your grid still
    takes the focus; the screen is the same as with them drawn, at full size and compact."""
    containers = ("#table", "#opponents", "#mine", "#side")
    for size in ((120, 40), (80, 24)):
        app = create_app(AppOptions(seats=quick_seats(3, "Connie"), seed=1, lang="en", data_dir=tmp_path,
                                    stats=False, save=False))
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            screen = app.screen
            drawn = screen._compositor.visible_widgets
            assert not any(screen.query_one(name) in drawn for name in containers)
            panels = [*screen.query(".opponent"), screen.query_one("#own-panel"), screen.query_one("#log")]
            assert all(panel in drawn for panel in panels if panel.display)
            assert screen.focused is screen.query_one("#own-grid")
            hidden = app.export_screenshot()
            for name in containers:
                screen.query_one(name).styles.visibility = "visible"
            await pilot.pause()
            assert all(screen.query_one(name) in screen._compositor.visible_widgets for name in containers)
            assert app.export_screenshot() == hidden, size
