"""Textual's and Rich's private names are used in one package, duckcover/app/render/, and nowhere
else in duckcover (issue 29): a Textual upgrade that moves them breaks that package alone, and
`DUCKCOVER_PAINTER=0` runs the app without it (tests/test_painter_switch.py).

Read from the source (the AST), each finding named by file and line:
- an import of a private module of theirs (`textual._compositor`, `textual.widgets._footer`) or
  of a private name from one of their modules;
- a name-mangled attribute of one of their classes (`_Static__content`);
- a private attribute of theirs read, written or overridden: `self._x`, `super()._x` or a method
  `_x` in a class whose Textual or Rich bases define `_x` (the `GridWidget._scroll_to` kind of
  accident included), and `thing._x` on anything else when Textual or Rich define `_x` anywhere
  (the receiver's type is not known from the source: the broad rule, so nothing slips by).
"""
from __future__ import annotations

import ast
import importlib
import inspect
import re
from functools import lru_cache
from pathlib import Path

import rich
import textual

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "duckcover"
RENDER = PACKAGE / "app" / "render"
LIBRARIES = ("textual", "rich")
MANGLED = re.compile(r"_([A-Za-z]\w*?)__\w+")
ATTRIBUTE_CALLS = ("getattr", "setattr", "hasattr", "delattr")
NAMEDTUPLE = frozenset({"_replace", "_asdict", "_make", "_fields", "_field_defaults"})  # public, by Python's rule


def is_private(name: str) -> bool:
    return len(name) > 1 and name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def library_sources() -> list[Path]:
    return [path for library in (textual, rich) for path in Path(library.__file__).parent.rglob("*.py")]


@lru_cache(maxsize=None)
def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def self_stores(node: ast.AST) -> set[str]:
    """The attributes a class's code sets on `self`."""
    return {child.attr for child in ast.walk(node) if isinstance(child, ast.Attribute)
            and isinstance(child.ctx, ast.Store) and isinstance(child.value, ast.Name) and child.value.id == "self"}


def defined_in(body: list[ast.stmt]) -> set[str]:
    """The names a module's or a class's own statements define (not a function's locals)."""
    names = set()
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
            if isinstance(statement, ast.ClassDef):
                names |= defined_in(statement.body)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names |= {node.id for target in targets for node in ast.walk(target) if isinstance(node, ast.Name)}
        elif isinstance(statement, (ast.If, ast.Try)):  # (definitions under a version check)
            names |= defined_in(statement.body + statement.orelse + getattr(statement, "finalbody", []))
    return names


# Where a module of theirs may define a private name: a def or class, an attribute, a name
# assigned or annotated at the start of a line. A quick superset, read closely (the AST) only
# for the names duckcover uses.
MAY_DEFINE = re.compile(r"(?:def|class)\s+(_\w+)|\.(_\w+)\b|^[ \t]*(_\w+)\s*[:=,]", re.M)


@lru_cache(maxsize=None)
def library_texts() -> dict[Path, str]:
    return {path: path.read_text(encoding="utf-8") for path in library_sources()}


@lru_cache(maxsize=None)
def library_candidates() -> dict[Path, frozenset[str]]:
    return {path: frozenset(name for match in MAY_DEFINE.findall(text) for name in match if name)
            for path, text in library_texts().items()}


@lru_cache(maxsize=None)
def library_defines(name: str) -> bool:
    """Whether Textual or Rich define `name` as something's attribute: a name of one of their
    modules or classes, or an attribute their code sets on an object (a function's locals do
    not count)."""
    if not is_private(name) or name in NAMEDTUPLE:
        return False
    return any(name in names and name in attribute_names(path) for path, names in library_candidates().items())


@lru_cache(maxsize=None)
def attribute_names(path: Path) -> frozenset[str]:
    """The names a module of theirs defines as something's attribute."""
    tree = parsed(path)
    stores = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)}
    return frozenset(defined_in(tree.body) | stores)


@lru_cache(maxsize=None)
def library_classes() -> frozenset[str]:
    return frozenset(name for text in library_texts().values() for name in re.findall(r"^\s*class (\w+)", text, re.M))


@lru_cache(maxsize=None)
def owned_by(cls: type) -> frozenset[str]:
    """The private names a Textual or Rich class itself defines or sets on its objects."""
    names = {name for name in vars(cls) if is_private(name)}
    try:
        tree = parsed(Path(inspect.getsourcefile(cls)))
    except (OSError, TypeError):
        return frozenset(names)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
            names |= self_stores(node)
    return frozenset(name for name in names if is_private(name))


def library_bases_own(cls: type | None, name: str) -> bool:
    """Whether a Textual or Rich class among `cls`'s bases owns `name` (None: not known, so yes)."""
    if cls is None:
        return True
    return any(base.__module__.split(".")[0] in LIBRARIES and name in owned_by(base) for base in cls.__mro__)


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def class_object(path: Path, qualname: str) -> type | None:
    """The class defined at `qualname` in the module at `path`, imported (None if it cannot be)."""
    try:
        found = importlib.import_module(module_name(path))
        for part in qualname.split("."):
            found = getattr(found, part)
    except Exception:  # noqa: BLE001 - a class in a function, a module needing an extra: not known
        return None
    return found if isinstance(found, type) else None


class PrivateUses(ast.NodeVisitor):
    """The uses of Textual's and Rich's private names in one module of duckcover."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.found: list[str] = []
        self.classes: list[tuple[str, ast.ClassDef]] = []  # (qualname, node), innermost last
        self.modules: set[str] = set()  # names bound to modules other than Textual's or Rich's (os)

    def report(self, node: ast.AST, what: str) -> None:
        shown = self.path.relative_to(ROOT) if ROOT in self.path.parents else self.path
        self.found.append(f"{shown}:{node.lineno}: {what}")

    def enclosing_class(self) -> type | None:
        return class_object(self.path, self.classes[-1][0]) if self.classes else None

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.check_import(node, alias.name.split("."), [])
            if alias.name.split(".")[0] not in LIBRARIES:
                self.modules.add(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module and not node.level:
            self.check_import(node, node.module.split("."), [alias.name for alias in node.names])

    def check_import(self, node: ast.AST, module: list[str], names: list[str]) -> None:
        if module[0] in LIBRARIES and any(is_private(part) for part in module + names):
            self.report(node, f"imports {'.'.join(module)}{' ' + ', '.join(names) if names else ''}")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        outer = self.classes[-1][0] + "." if self.classes else ""
        self.classes.append((outer + node.name, node))
        cls = None
        for statement in node.body:  # a method or class attribute overriding theirs
            defined = [statement.name] if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) else [
                target.id for target in getattr(statement, "targets", [getattr(statement, "target", None)])
                if isinstance(target, ast.Name)]
            for name in defined:
                if library_defines(name):
                    cls = cls or self.enclosing_class()
                    if library_bases_own(cls, name):
                        self.report(statement, f"overrides {name} of a Textual or Rich base of {node.name}")
        self.generic_visit(node)
        self.classes.pop()

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.check_attribute(node, node.value, node.attr)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if (isinstance(node.func, ast.Name) and node.func.id in ATTRIBUTE_CALLS and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            self.check_attribute(node, node.args[0], node.args[1].value)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        self.check_mangled(node, node.id)

    def check_mangled(self, node: ast.AST, name: str) -> bool:
        match = MANGLED.fullmatch(name)
        if match and match.group(1) in library_classes():
            self.report(node, f"uses {name}, name-mangled in Textual's or Rich's {match.group(1)}")
            return True
        return False

    def check_attribute(self, node: ast.AST, receiver: ast.AST, name: str) -> None:
        if self.check_mangled(node, name) or not library_defines(name):
            return
        if isinstance(receiver, ast.Name) and receiver.id in self.modules:
            return  # another module's private name (os._exit): not theirs
        mine = (isinstance(receiver, ast.Name) and receiver.id in ("self", "cls")) or (
            isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super")
        if not mine or library_bases_own(self.enclosing_class(), name):
            self.report(node, f"uses .{name}, a private name of Textual's or Rich's")


def private_uses(path: Path) -> list[str]:
    visitor = PrivateUses(path)
    visitor.visit(parsed(path))
    return visitor.found


def outside_render() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if RENDER not in path.parents)


def test_textual_and_rich_private_names_are_used_in_the_render_package_only():
    found = [use for path in outside_render() for use in private_uses(path)]
    assert not found, "Textual's or Rich's private names outside duckcover/app/render/:\n" + "\n".join(found)


def test_the_check_finds_each_kind_of_use_and_names_its_line(tmp_path):
    source = tmp_path / "sample.py"
    source.write_text("""\
import os
from textual._compositor import CompositorUpdate
from textual.widgets import Static
from rich import _wrap


class Grid(Static):
    def _scroll_to(self, x, y):
        self._Static__content = ""
        self._mine = 1
        return getattr(self, "_layout_cache")


def draw(widget, style):
    widget._styles_cache.clear()
    os._exit(style._link_id)
    return view._replace(grids=())
""")
    found = private_uses(source)
    assert found == [f"{source}:{line}: {what}" for line, what in [
        (2, "imports textual._compositor CompositorUpdate"),
        (4, "imports rich _wrap"),
        (8, "overrides _scroll_to of a Textual or Rich base of Grid"),
        (9, "uses _Static__content, name-mangled in Textual's or Rich's Static"),
        (11, "uses ._layout_cache, a private name of Textual's or Rich's"),
        (15, "uses ._styles_cache, a private name of Textual's or Rich's"),
        (16, "uses ._link_id, a private name of Textual's or Rich's"),
    ]]
