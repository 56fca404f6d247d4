"""Every import in ``src/tabletop`` points down the layers of docs/DESIGN.md.

The layers, top first: cli > bench > train > server > envs > ratings > tournament > match > players > protocols > ai >
records > games > errors.  A module may import its own layer and any layer below it, never one above.
The walk reads each module's syntax tree, so imports inside functions and under ``TYPE_CHECKING``
count as much as those at the top of a file, and so does ``importlib.import_module`` with a literal
name (or an f-string: its fixed start names the package).  The root package (``tabletop/__init__.py``) is glue:
``from tabletop import __version__`` is allowed anywhere, and each name it exports lazily counts as an
import of the module that defines it.
"""

from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass
from pathlib import Path

import pytest

import tabletop

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "tabletop"

# top first; a module's layer is the first entry its dotted name starts with
LAYERS = [
    "tabletop.cli",
    "tabletop.bench",
    "tabletop.train",
    "tabletop.server",
    "tabletop.envs",
    "tabletop.ratings",
    "tabletop.tournament",
    "tabletop.match",
    "tabletop.players",
    "tabletop.protocols",
    "tabletop.ai",
    "tabletop.records",
    "tabletop.games",
    "tabletop.errors",
]


def layer_of(module: str) -> int | None:
    """Index in LAYERS (0 is the top), or None for the root package and outside modules."""
    for index, prefix in enumerate(LAYERS):
        if module == prefix or module.startswith(prefix + "."):
            return index
    return None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (or, for ``from X import name``, X.name when that is a module)
    line: int


def _resolve_from(node: ast.ImportFrom, source: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = source.split(".") if is_package else source.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: Path) -> list[Import]:
    source = module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(source, alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = _resolve_from(node, source, path.name == "__init__.py")
            for alias in node.names:
                found.append(Import(source, _target(module, alias.name), node.lineno))
        elif isinstance(node, ast.Call) and (name := _dynamic_import(node)):
            found.append(Import(source, name, node.lineno))
    return [i for i in found if i.target == "tabletop" or i.target.startswith("tabletop.")]


def _dynamic_import(call: ast.Call) -> str | None:
    """The module of ``importlib.import_module("tabletop.x")``, or the fixed part of an f-string
    argument (``f"tabletop.ai.{game}"`` imports from ``tabletop.ai``)."""
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if called != "import_module" or not call.args:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        return str(arg.values[0].value).rstrip(".")
    return None


def _target(module: str, name: str) -> str:
    """``from module import name``: the submodule ``module.name`` when there is one, the module of a
    lazily exported name of the root package, else ``module``."""
    if module == "tabletop" and name in tabletop.EXPORTS:
        return tabletop.EXPORTS[name]
    candidate = f"{module}.{name}"
    rel = Path(*candidate.split("."))
    if (SRC / rel).is_dir() or (SRC / rel).with_suffix(".py").exists():
        return candidate
    return module


def all_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def upward_imports() -> list[str]:
    bad = []
    for path in all_modules():
        for imp in imports_of(path):
            here, there = layer_of(imp.source), layer_of(imp.target)
            if here is not None and there is not None and there < here:
                bad.append(f"{path.relative_to(SRC)}:{imp.line}: {imp.source} imports {imp.target} "
                           f"({LAYERS[here]} is below {LAYERS[there]})")
    return bad


def test_every_module_belongs_to_a_layer() -> None:
    unplaced = [module_name(p) for p in all_modules() if layer_of(module_name(p)) is None]
    assert unplaced == ["tabletop"], f"modules outside the layer map: {unplaced}"


def test_no_import_points_up_the_layers() -> None:
    bad = upward_imports()
    assert not bad, "imports that point up the layers:\n" + "\n".join(bad)


def test_every_layer_in_the_map_exists() -> None:
    for prefix in LAYERS:
        rel = Path(*prefix.split("."))
        assert (SRC / rel).is_dir() or (SRC / rel).with_suffix(".py").exists(), prefix


def test_the_root_package_imports_no_layer_when_it_loads() -> None:
    # its exports are lazy, so ``import tabletop`` never drags a layer above the one asking for it
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    top_level = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    names = [a.name for n in top_level if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in top_level if isinstance(n, ast.ImportFrom)]
    assert names and not [name for name in names if name.split(".")[0] == "tabletop" or not name]


def test_every_name_imported_from_tabletop_exists() -> None:
    # a name moved to another layer leaves no caller behind (a function-level import would only fail when run)
    missing = []
    for path in all_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            module = _resolve_from(node, module_name(path), path.name == "__init__.py")
            if not (module == "tabletop" or module.startswith("tabletop.")):
                continue
            try:
                loaded = importlib.import_module(module)
            except ImportError as exc:  # an optional extra that is not installed is no fault of the tree
                if exc.name is not None and not exc.name.startswith("tabletop"):
                    continue
                missing.append(f"{path.relative_to(SRC)}:{node.lineno}: {exc}")
                continue
            for alias in node.names:
                if not hasattr(loaded, alias.name) and _target(module, alias.name) == module:
                    missing.append(f"{path.relative_to(SRC)}:{node.lineno}: {module} has no {alias.name}")
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize(
    ("text", "source", "expected"),
    [
        ("from tabletop.cli import CliError", "tabletop.bench.server", "tabletop.bench.server imports tabletop.cli"),
        ("def f():\n    from tabletop.protocols.nboard import NBoardPlayer", "tabletop.ai.levels",
         "tabletop.ai.levels imports tabletop.protocols.nboard"),
        ("from ..players import player", "tabletop.ai.base", "tabletop.ai.base imports tabletop.players"),
        ("from tabletop import player", "tabletop.protocols.gomocup", "imports tabletop.players"),
        ("import importlib\nimportlib.import_module(f'tabletop.cli.{name}')", "tabletop.bench.reversi",
         "tabletop.bench.reversi imports tabletop.cli"),
    ],
)
def test_the_walk_catches_an_upward_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str,
                                           source: str, expected: str) -> None:
    # a fake tree with one offending module: the walk must name it
    parts = source.split(".")
    root = tmp_path / "src"
    for layer in LAYERS:
        rel = root / Path(*layer.split("."))
        rel.mkdir(parents=True, exist_ok=True)
        (rel / "__init__.py").touch()
    (root / "tabletop" / "__init__.py").write_text("")
    target = root / Path(*parts[:-1]) / f"{parts[-1]}.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text + "\n")
    monkeypatch.setitem(globals(), "SRC", root)
    monkeypatch.setitem(globals(), "PACKAGE", root / "tabletop")
    bad = upward_imports()
    assert len(bad) == 1 and expected in bad[0]
