"""What duckcover/app/render/textual_compat.py relies on in Textual: if an upgrade renames or
reshapes it, these fail with its name instead of the app quietly painting its first frame twice,
rendering and restyling its first table twice as it starts, or a guest's terminal showing a
traceback."""
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


def start_of_a_table(tmp_path):
    from duckcover.app import AppOptions, create_app, quick_seats

    return create_app(AppOptions(seats=quick_seats(3, None), seed=1, lang="en", data_dir=tmp_path,
                                 save=False, stats=False))


def app_starting(app) -> bool:
    """Textual holds the frames of the app's start (its Mount not yet handled) in a batch."""
    return bool(app._batch_count) and not app._is_mounted


async def test_the_first_table_is_not_rendered_while_the_start_holds_its_frames(tmp_path, monkeypatch):
    """A render made inside the start's batch is dropped (App._display writes nothing then), and
    the first frame painted after it showed only what changed since: no borders, no keys."""
    from textual._compositor import Compositor

    from duckcover.app.table.screen import TableScreen

    monkeypatch.setenv("DUCKCOVER_PAINTER", "1")
    app = start_of_a_table(tmp_path)
    renders = []  # (the start under way, a full update)
    full, partial = Compositor.render_full_update, Compositor.render_partial_update

    def spy(real, is_full):
        def render(compositor, *args, **kwargs):
            if isinstance(compositor.root, TableScreen):
                renders.append((app_starting(app), is_full))
            return real(compositor, *args, **kwargs)
        return render

    monkeypatch.setattr(Compositor, "render_full_update", spy(full, True))
    monkeypatch.setattr(Compositor, "render_partial_update", spy(partial, False))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
    assert renders, "the table was never rendered"
    assert not any(starting for starting, _ in renders)
    assert renders[0] == (False, True)  # the first render after the start: the whole screen


async def test_the_first_table_is_styled_once_as_it_mounts_not_again_when_it_resumes(tmp_path, monkeypatch):
    from textual.dom import DOMNode

    from duckcover.app.table.screen import TableScreen

    monkeypatch.setenv("DUCKCOVER_PAINTER", "1")
    app = start_of_a_table(tmp_path)
    restyled = []
    real = DOMNode.update_node_styles

    def spy(node, animate=True):
        if isinstance(node, TableScreen):
            restyled.append(app_starting(app))
        return real(node, animate)

    monkeypatch.setattr(DOMNode, "update_node_styles", spy)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
    assert True not in restyled
