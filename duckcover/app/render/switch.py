"""The painter's switch: `DUCKCOVER_PAINTER=0` in the environment runs the app on Textual's
public drawing path alone (see the package's door, __init__.py). A module of its own, so the
package's modules ask it without importing the door that imports them."""
from __future__ import annotations

import os

SWITCH = "DUCKCOVER_PAINTER"


def painter_on() -> bool:
    """Whether the app draws through this package (anything but `DUCKCOVER_PAINTER=0`)."""
    return os.environ.get(SWITCH, "1").strip() != "0"
