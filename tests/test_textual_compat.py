"""What duckcover/app/textual_compat.py relies on in Textual: if an upgrade renames or reshapes
it, these fail with its name instead of the app quietly painting its first frame twice."""
import inspect

from textual.screen import Screen

from duckcover.app.textual_compat import Backdrop


def test_the_private_screen_method_the_backdrop_overrides_still_exists():
    refresh = getattr(Screen, "_compositor_refresh", None)
    assert refresh is not None, "Screen._compositor_refresh is gone"
    assert list(inspect.signature(refresh).parameters) == ["self"]


async def test_the_app_starts_on_the_backdrop_and_the_table_goes_over_it(tmp_path):
    from duckcover.app import AppOptions, create_app, quick_seats
    from duckcover.app.table.screen import TableScreen

    app = create_app(AppOptions(seats=quick_seats(2, None), seed=1, speed="instant", lang="en",
                                data_dir=tmp_path, save=False, stats=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        bottom, top = app.screen_stack
        assert isinstance(bottom, Backdrop) and isinstance(top, TableScreen)


async def test_report_refreshes_hands_every_pending_widget_refresh_to_the_screen_at_once():
    """What app/remote.py calls after each server message, so a reveal is one frame: the
    private names it reads are still there, and after it no widget still holds a refresh."""
    from textual.app import App
    from textual.widget import Widget
    from textual.widgets import Static

    from duckcover.app.textual_compat import report_refreshes

    assert callable(getattr(Widget, "_check_refresh", None)), "Widget._check_refresh is gone"

    class Two(App):
        def compose(self):
            yield Static("one", id="one")
            yield Static("two", id="two")

    app = Two()
    async with app.run_test(size=(20, 4)) as pilot:
        await pilot.pause()
        for name in ("one", "two"):
            app.query_one(f"#{name}", Static).update(name.upper())
        widgets = list(app.screen.walk_children(with_self=False))
        assert any(w._repaint_required for w in widgets)
        report_refreshes(app.screen)
        assert not any(w._repaint_required or w._layout_required for w in widgets)
        await pilot.pause()
        assert "ONE" in str(app.query_one("#one", Static).render())
