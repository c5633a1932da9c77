"""What the README and docs state about the data must be what the package ships."""
from pathlib import Path

from duckcover.engine.cards import packaged_splashes

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_splash_table_is_the_packaged_one():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### The splash table", 1)[1]
    rows = [line for line in section.splitlines() if line.startswith("| card") or line.startswith("| splashes")]
    cards, splashes = ([cell.strip() for cell in row.strip("|").split("|")][1:] for row in rows[:2])
    assert cards == [str(n) for n in range(1, 13)]
    assert tuple(int(v) for v in splashes) == packaged_splashes()
