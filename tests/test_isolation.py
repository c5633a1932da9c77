"""conftest.py runs every test against the published defaults: these fail if it stops doing so
(run the suite with DUCKCOVER_SPLASHES or a ~/.config/duckcover/splashes.json in place)."""
import os
from pathlib import Path

from duckcover.engine.cards import default_splashes, packaged_splashes, user_splashes_path
from duckcover.saves.paths import data_dir


def test_the_packaged_splash_table_is_in_force():
    assert "DUCKCOVER_SPLASHES" not in os.environ
    assert not user_splashes_path().exists()
    assert default_splashes() == packaged_splashes()


def test_home_config_and_data_are_a_fresh_directory_per_test():
    home = Path(os.environ["HOME"])
    assert user_splashes_path().is_relative_to(home) and data_dir().is_relative_to(home)
    assert not any(home.iterdir())
    (home / "left-behind").write_text("x")  # the next test's home must not see this


def test_a_second_test_gets_another_home():
    assert not (Path(os.environ["HOME"]) / "left-behind").exists()
