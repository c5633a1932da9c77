"""Every key the code asks `t()` for exists in the catalogues (so in all three languages,
by test_i18n), and the app's Python files show no text except through `t()`."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from duckcover.common import i18n

PACKAGE = Path(__file__).resolve().parent.parent / "duckcover"
SOURCES = sorted(PACKAGE.rglob("*.py"))


def t_calls(path: Path):
    """(line, key or None, prefix) for each t(...) call: a literal key, or an f-string's fixed start."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "t" and node.args):
            continue
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            yield node.lineno, arg.value, None
        elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
            yield node.lineno, None, arg.values[0].value


def test_every_literal_key_exists():
    english = i18n.catalogue("en")
    missing = [f"{path.relative_to(PACKAGE)}:{line}: {key}"
               for path in SOURCES for line, key, _ in t_calls(path) if key is not None and key not in english]
    assert missing == []


def test_every_computed_key_has_a_family_in_the_catalogue():
    english = i18n.catalogue("en")
    orphans = [f"{path.relative_to(PACKAGE)}:{line}: {prefix}..."
               for path in SOURCES for line, _, prefix in t_calls(path)
               if prefix is not None and not any(key.startswith(prefix) for key in english)]
    assert orphans == []


UI_CALLS = {"Static", "Label", "Button", "Option", "notify", "Checkbox", "Switch"}


@pytest.mark.parametrize("path", sorted((PACKAGE / "app").rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_widgets_and_notices_take_their_words_from_t(path):
    """A string literal with words, given straight to a widget or a notice, is English for everyone."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        if name not in UI_CALLS or not node.args:
            continue
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and any(c.isalpha() for c in arg.value):
            found.append(f"{path.name}:{node.lineno}: {arg.value[:40]!r}")
    assert found == []
