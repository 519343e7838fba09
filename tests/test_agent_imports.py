"""No import circle among the agents' modules, lazy imports included.

The agents import downward: the spec types are a leaf (:mod:`carioca_agents.specs`), the
registry imports the agents to build them, and no agent imports the registry back (search
is handed the registry's builder for its rollout policy).  Every import counts here, at any
depth of a function and under ``TYPE_CHECKING`` too, so a circle cannot hide in a lazy one.
"""

from __future__ import annotations

import ast
from pathlib import Path

from package_dirs import module_name, source_files

PACKAGE = "carioca_agents"


def _edges(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that the file ``path`` imports explicitly, anywhere in it."""
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules)
    return {m for m in out if m in modules and m != here}


def import_graph() -> dict[str, set[str]]:
    """Module -> the agents' modules it imports."""
    files = {module_name(p): p for p in source_files(PACKAGE)}
    return {m: _edges(p, set(files)) for m, p in files.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_agents_modules_import_without_circles() -> None:
    graph = import_graph()
    assert len(graph) > 20 and f"{PACKAGE}.registry" in graph  # the scan sees the package
    assert circles(graph) == []


def test_the_spec_types_are_a_leaf_and_no_agent_imports_the_registry() -> None:
    graph = import_graph()
    assert graph[f"{PACKAGE}.specs"] == {f"{PACKAGE}.base"} or graph[f"{PACKAGE}.specs"] == set()
    importers = sorted(m for m, deps in graph.items() if f"{PACKAGE}.registry" in deps)
    # the allow-list check and the plugin loader work on specs; no agent builds through the registry
    assert set(importers) <= {f"{PACKAGE}.allowlist", f"{PACKAGE}.plugins"}, importers


def test_the_scan_finds_a_circle_through_a_lazy_import() -> None:
    """Not vacuous: a lazy import back is a circle."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
