"""The house rules of the package (issue 16, docs/architecture.md): imports run one
way, from the command line down to the front end, and no module is too long to read.

The import graph is read from the source with ``ast`` -- every ``import`` and
``from ... import`` statement anywhere in a module, inside functions and under
``if TYPE_CHECKING`` included: a lazy import is still a dependency of the design.
Imports inside docstring examples are not statements and do not count.

Nodes of the graph are the *first two parts* of a module name:

* a subpackage is one node: ``kerncraft.incore.x86.parser`` -> ``kerncraft.incore``;
* a top-level module is a node of its own: ``kerncraft/units.py`` -> ``kerncraft.units``,
  likewise ``errors``, ``version``, ``diskcache``, ``options``, ``api``;
* ``kerncraft/__init__.py`` (the public facade ``import kerncraft``) is ``kerncraft``;
  ``from kerncraft import X`` means the module ``kerncraft.X`` when that exists, else
  the facade.

Imports between modules of the same node are not checked here.
"""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parents[1] / "kerncraft"
MAX_LINES = 500

#: The layering, top to bottom. A node may import only nodes of a *lower* layer
#: (never one of its own layer or above). Every node of the package must be listed.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("kerncraft.cli",),                          # the four commands (argparse lives here)
    ("kerncraft",),                              # the facade: analyze, load_machine, ...
    ("kerncraft.api",),                          # analyze/sweep: options -> model -> result
    ("kerncraft.bench",),                        # measurement, benchmark mode, validation
    ("kerncraft.models",),                       # composition: ECM, Roofline, LC, registry
    ("kerncraft.report",),                       # text and JSON of the typed results
    ("kerncraft.build", "kerncraft.cache"),      # codegen/compile/block selection; traffic
    ("kerncraft.incore",),                       # assembly parsers, port models, analysis
    ("kerncraft.kernel", "kerncraft.machine"),   # front end: kernel model, machine model
    ("kerncraft.pointcache",),                   # finished reports per -D point (warm runs)
    ("kerncraft.options", "kerncraft.units", "kerncraft.diskcache", "kerncraft.resources"),
    ("kerncraft.errors", "kerncraft.version"),
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _node(module: str) -> str:
    parts = module.split(".")
    if len(parts) >= 2:
        head = PACKAGE / parts[1]
        if head.is_dir() or head.with_suffix(".py").is_file():
            return ".".join(parts[:2])
    return "kerncraft"


def _imported_modules(path: Path) -> list[tuple[str, int]]:
    """(module name, line) of every kerncraft import in ``path``."""
    module = _module_name(path)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "kerncraft":      # from kerncraft import X: module X or the facade
                found += [(f"kerncraft.{alias.name}", node.lineno) for alias in node.names]
            else:
                found.append((target, node.lineno))
    return [(name, line) for name, line in found
            if name == "kerncraft" or name.startswith("kerncraft.")]


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def import_graph() -> tuple[nx.DiGraph, dict[tuple[str, str], list[str]]]:
    """Node graph of the package, and for each edge where it comes from."""
    graph = nx.DiGraph()
    origins: dict[tuple[str, str], list[str]] = {}
    for path in _modules():
        source = _node(_module_name(path))
        graph.add_node(source)
        for target, line in _imported_modules(path):
            target = _node(target)
            if target != source:
                graph.add_edge(source, target)
                origins.setdefault((source, target), []).append(
                    f"{path.relative_to(PACKAGE.parent)}:{line}")
    return graph, origins


def test_every_node_has_a_layer():
    graph, _ = import_graph()
    listed = [node for layer in LAYERS for node in layer]
    assert len(listed) == len(set(listed))
    assert set(graph.nodes) <= set(listed), "add the new package/module to LAYERS"


def test_package_imports_are_acyclic():
    graph, origins = import_graph()
    cycles = sorted(nx.simple_cycles(graph), key=len)[:5]
    detail = [" -> ".join(c + [c[0]]) + ": " + "; ".join(
        origins[(a, b)][0] for a, b in zip(c, c[1:] + c[:1])) for c in cycles]
    assert nx.is_directed_acyclic_graph(graph), detail


def test_imports_respect_the_layers():
    graph, origins = import_graph()
    rank = {node: i for i, layer in enumerate(LAYERS) for node in layer}
    upward = [f"{a} -> {b} ({', '.join(origins[(a, b)][:3])})" for a, b in graph.edges
              if a in rank and b in rank and rank[b] <= rank[a]]
    assert upward == []


def test_the_graph_sees_lazy_imports():
    # the check would be worthless if function-level imports were missed
    graph, origins = import_graph()
    assert ("kerncraft.api", "kerncraft.bench") in graph.edges        # analyze(Benchmark)
    assert any("cli/incore.py" in o for o in origins[("kerncraft.cli", "kerncraft.bench")])


def test_no_module_is_longer_than_500_lines():
    long = {str(p.relative_to(PACKAGE.parent)): n for p in _modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}
