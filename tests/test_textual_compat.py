"""What duckcover.app.render.textual_compat.py relies on in Textual: if an upgrade renames or reshapes
it, these fail with its name instead of the app quietly painting its first frame twice."""
import inspect

from textual.screen import Screen

from duckcover.app.render.textual_compat import Backdrop


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
