"""tests/autoplay.py drives whole games by keys through two private Textual calls (isolated
there in `deliver` and `wait_for_screen`). If a Textual upgrade renames or reshapes them, this
fails with their names instead of every app test timing out."""
import inspect

from textual.app import App
from textual.pilot import Pilot


def test_the_private_textual_calls_autoplay_uses_still_exist():
    post = getattr(App, "_post_message", None)
    wait = getattr(Pilot, "_wait_for_screen", None)
    assert post is not None and inspect.iscoroutinefunction(post), "App._post_message is gone"
    assert list(inspect.signature(post).parameters) == ["self", "message"]
    assert wait is not None and inspect.iscoroutinefunction(wait), "Pilot._wait_for_screen is gone"
    assert all(p.default is not inspect.Parameter.empty
               for p in list(inspect.signature(wait).parameters.values())[1:])


async def test_a_key_delivered_by_autoplay_reaches_the_app():
    from textual import events

    from autoplay import deliver, wait_for_screen

    seen = []

    class Echo(App):
        def on_key(self, event: events.Key) -> None:
            seen.append(event.key)

    app = Echo()
    async with app.run_test() as pilot:
        event = events.Key("x", "x")
        event.set_sender(app)
        await deliver(app, event)
        await wait_for_screen(pilot)
        await wait_for_screen(pilot)
    assert seen == ["x"]
