"""What duckcover/app/render/textual_compat.py relies on in Textual: if an upgrade renames or
reshapes it, these fail with its name instead of the app quietly painting its first frame twice
or a guest's terminal showing a traceback."""
import inspect

from textual.app import App
from textual.screen import Screen

from duckcover.app.render.textual_compat import Backdrop


def test_the_private_screen_method_the_backdrop_overrides_still_exists():
    refresh = getattr(Screen, "_compositor_refresh", None)
    assert refresh is not None, "Screen._compositor_refresh is gone"
    assert list(inspect.signature(refresh).parameters) == ["self"]


def test_the_private_app_methods_a_guests_app_overrides_still_exist():
    handle = getattr(App, "_handle_exception", None)
    show = getattr(App, "_print_error_renderables", None)
    assert handle is not None and list(inspect.signature(handle).parameters) == ["self", "error"]
    assert show is not None and list(inspect.signature(show).parameters) == ["self"]
    assert isinstance(App()._exit_renderables, list), "App._exit_renderables is gone"


async def test_the_app_starts_on_the_backdrop_and_the_table_goes_over_it(tmp_path, monkeypatch):
    monkeypatch.setenv("DUCKCOVER_PAINTER", "1")  # (off: Textual's own first screen)
    from duckcover.app import AppOptions, create_app, quick_seats
    from duckcover.app.table.screen import TableScreen

    app = create_app(AppOptions(seats=quick_seats(2, None), seed=1, speed="instant", lang="en",
                                data_dir=tmp_path, save=False, stats=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        bottom, top = app.screen_stack
        assert isinstance(bottom, Backdrop) and isinstance(top, TableScreen)
