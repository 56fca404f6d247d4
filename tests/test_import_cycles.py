"""No two modules of ``src/tabletop`` import each other, directly or round a longer loop.

The walk is the one of ``test_layers.py``: every import counts, at the top of a file, inside a
function, under ``TYPE_CHECKING`` or through ``importlib.import_module``.  An import made only for
a type annotation counts too: a module that names another in its signatures is read with it, and
the point of the rule is that a part of the server (a room's seats, clock, computer turns,
rematch, catch-up) or of the benchmark reads without the whole that uses it.  A part that needs
something of its owner declares it as a small ``Protocol`` in its own module.

Three loops are accepted by name, each a registry that a package fills lazily from its own
submodules (the pattern of python-chess's ``chess.svg``); any other loop, or one of these that is
gone, fails the test.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

import test_layers
from test_layers import all_modules, imports_of, module_name

# each accepted loop: the modules in it, and why it is one
ACCEPTED: dict[frozenset[str], str] = {
    frozenset({"tabletop.games.core", "tabletop.games.svg"}):
        "a board's _repr_svg_ (notebooks) loads the picture module on first use",
    frozenset({"tabletop.ai", "tabletop.ai.levels"}):
        "the generic level table loads a game's own levels by name (import_module of tabletop.ai.GAME)",
    frozenset({"tabletop.records", "tabletop.records.psq"}):
        "the record formats register themselves; psq is loaded on first use",
}


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of the tree it imports (itself and outside modules left out)."""
    modules = {module_name(p) for p in all_modules()}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for path in all_modules():
        for imp in imports_of(path):
            if imp.target in modules and imp.target != imp.source:
                graph[imp.source].add(imp.target)
    return graph


@cache
def tree_graph() -> dict[str, set[str]]:
    """The graph of the tree itself, walked once for the tests that read it."""
    return import_graph()


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected parts of ``graph`` with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    part = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.add(member)
                        if member == node:
                            break
                    if len(part) > 1:
                        found.append(frozenset(part))
    return found


def describe(part: frozenset[str], graph: dict[str, set[str]]) -> str:
    edges = sorted(f"{a} -> {b}" for a in part for b in graph[a] if b in part)
    return ", ".join(edges)


def test_no_modules_import_each_other() -> None:
    graph = tree_graph()
    loops = [part for part in cycles(graph) if part not in ACCEPTED]
    assert not loops, "import cycles:\n" + "\n".join(describe(p, graph) for p in loops)


def test_every_accepted_loop_still_exists() -> None:
    # a loop broken since is taken off the list, so that it cannot come back unnoticed
    found = set(cycles(tree_graph()))
    assert not [sorted(part) for part in ACCEPTED if part not in found]


def test_the_room_parts_and_the_benchmark_modules_are_in_no_loop() -> None:
    graph = tree_graph()
    looped = set().union(*cycles(graph))
    parts = ["seats", "clock", "thinking", "rematch", "catchup", "room", "rooms"]
    named = [f"tabletop.server.{p}" for p in parts] + [f"tabletop.bench.{b}" for b in ("server", "relay", "soak")]
    assert not looped & set(named)
    for part in parts[:-2]:
        assert "tabletop.server.room" not in graph[f"tabletop.server.{part}"]
        assert "tabletop.server.rooms" not in graph[f"tabletop.server.{part}"]


def test_cycles_finds_a_loop_and_only_the_loop() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}}
    assert cycles(graph) == [frozenset({"a", "b", "c"})]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize(
    "back",
    [
        "def f():\n    from tabletop.server.room import Room",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tabletop.server.room import Room",
        "from tabletop.server import room",
        "from .room import Room",
    ],
)
def test_the_walk_sees_a_loop_made_by_any_kind_of_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, back: str
) -> None:
    root = tmp_path / "src"
    server = root / "tabletop" / "server"
    server.mkdir(parents=True)
    (root / "tabletop" / "__init__.py").write_text("")
    (server / "__init__.py").write_text("")
    (server / "room.py").write_text("from tabletop.server.clock import FlagTimer\n")
    (server / "clock.py").write_text(back + "\n")
    monkeypatch.setattr(test_layers, "SRC", root)
    monkeypatch.setattr(test_layers, "PACKAGE", root / "tabletop")
    assert cycles(import_graph()) == [frozenset({"tabletop.server.room", "tabletop.server.clock"})]
