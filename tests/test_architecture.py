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
    ("kerncraft.machinegen",),                   # kerncraft-machine: measure the host, write YAML
    ("kerncraft.validation",),                   # kerncraft-validate: predictions vs measurements
    ("kerncraft.runner",),                       # the model table, -D points, finished points
    ("kerncraft.benchmark", "kerncraft.dbtools"),  # -p Benchmark; port-model database tools
    ("kerncraft.report",),                       # text, JSON and pictures of the typed results
    ("kerncraft.models",),                       # compute: ECM, Roofline, LC -> typed results
    ("kerncraft.compilation", "kerncraft.cache"),  # codegen/compile/loop block; data traffic
    ("kerncraft.memo",),                         # finished reports, in-core analyses on disk
    ("kerncraft.incore",),                       # assembly parsers, port models, analysis
    ("kerncraft.kernel", "kerncraft.machine"),   # front end: kernel model, machine model
    ("kerncraft.options", "kerncraft.units", "kerncraft.resources", "kerncraft.measure",
     "kerncraft.userfiles"),                     # settings, units, timers, the user's files
    ("kerncraft.diskstore",),                    # the disk store (benchmark programs too)
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
    assert ("kerncraft.runner", "kerncraft.benchmark") in graph.edges   # the Benchmark model
    assert any("cli/incore.py" in o for o in origins[("kerncraft.cli", "kerncraft.dbtools")])


def test_no_module_is_longer_than_500_lines():
    long = {str(p.relative_to(PACKAGE.parent)): n for p in _modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


# ------------------------------------------------------------ module-level rules
# The rules above see packages; these see single modules (issue 25): no import cycle
# between two modules at all, no private name taken from another module, no two
# public classes of one name, one table of models.

def _module_imports(path: Path) -> list[tuple[str, str, int]]:
    """(target module, imported name or '', line) of every kerncraft import in
    ``path``: ``from P import n`` names the module ``P.n`` when that is a module."""
    module = _module_name(path)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, "", node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = (".".join(package[:len(package) - node.level + 1]
                               + ([node.module] if node.module else []))
                      if node.level else node.module or "")
            found += [(target, alias.name, node.lineno) for alias in node.names]
    return [(t, n, line) for t, n, line in found
            if t == "kerncraft" or t.startswith("kerncraft.")]


def _all_modules() -> dict[str, Path]:
    return {_module_name(path): path for path in _modules()}


def module_graph() -> tuple[nx.DiGraph, dict[tuple[str, str], str]]:
    """Module import graph of the package (every import statement, lazy ones too)."""
    modules = _all_modules()
    graph, origins = nx.DiGraph(), {}
    for module, path in modules.items():
        graph.add_node(module)
        for target, name, line in _module_imports(path):
            if name and f"{target}.{name}" in modules:
                target = f"{target}.{name}"
            if target in modules and target != module:
                graph.add_edge(module, target)
                origins.setdefault((module, target),
                                   f"{path.relative_to(PACKAGE.parent)}:{line}")
    return graph, origins


def test_no_module_cycles():
    graph, origins = module_graph()
    cycles = sorted(nx.simple_cycles(graph), key=len)[:5]
    detail = [" -> ".join(c + [c[0]]) + " (" + "; ".join(
        origins[(a, b)] for a, b in zip(c, c[1:] + c[:1])) + ")" for c in cycles]
    assert detail == []


def private_imports() -> list[str]:
    """``from other_module import _name``: a private name used across modules."""
    modules = _all_modules()
    found = []
    for module, path in modules.items():
        for target, name, line in _module_imports(path):
            if (name.startswith("_") and not name.startswith("__")
                    and f"{target}.{name}" not in modules and target != module):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {name} from {target}")
    return found


def test_no_private_name_is_imported_across_modules():
    assert private_imports() == []


def public_classes() -> dict[str, list[str]]:
    """Public class name -> the modules that define one at their top level."""
    classes: dict[str, list[str]] = {}
    for module, path in _all_modules().items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                classes.setdefault(node.name, []).append(module)
    return classes


def test_no_two_public_classes_share_a_name():
    assert {name: where for name, where in public_classes().items() if len(where) > 1} == {}


MODEL_NAMES = {"ECM", "ECMData", "ECMCPU", "RooflineFLOP", "RooflineASM", "LC", "Benchmark"}


def model_tables() -> list[str]:
    """Places that list the models: a dict literal keyed by three or more model names,
    and strings naming a function as 'module:function' (invisible to an import graph)."""
    found = []
    for module, path in _all_modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                if len(keys & MODEL_NAMES) >= 3:
                    found.append(f"{module}:{node.lineno}")
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and node.value.startswith("kerncraft.") and ":" in node.value
                  and " " not in node.value):
                found.append(f"{module}:{node.lineno}: {node.value}")
    return found


def test_one_table_of_models():
    tables = model_tables()
    assert len(tables) == 1 and tables[0].startswith("kerncraft.runner."), tables


def test_models_import_nothing_of_the_report_layer():
    # the pipeline runs models -> report: a result is rendered, it does not render itself
    graph, origins = import_graph()
    assert ("kerncraft.models", "kerncraft.report") not in graph.edges, \
        origins.get(("kerncraft.models", "kerncraft.report"))


# The checks must be able to fail: each finds what it looks for in a planted case.

def _plant(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def test_the_module_checks_find_planted_faults(tmp_path, monkeypatch):
    root = tmp_path / "kerncraft"
    monkeypatch.setitem(globals(), "PACKAGE", root)
    _plant(root, {
        "__init__.py": "",
        "models/__init__.py": "",
        "models/a.py": "def f():\n    from kerncraft.models.b import _hidden\n"
                       "class Twin: pass\nfrom kerncraft.report.text import x\n",
        "models/b.py": "from kerncraft.models import a\n_hidden = 1\n"
                       "T = {'ECM': 1, 'LC': 2, 'ECMData': 3}\n",
        "report/__init__.py": "",
        "report/text.py": "class Twin: pass\nM = {'ECM': 'kerncraft.models.a:f'}\n",
    })
    graph, _ = module_graph()
    assert not nx.is_directed_acyclic_graph(graph)             # a <-> b, one lazy
    assert private_imports() == ["kerncraft/models/a.py:2: _hidden from kerncraft.models.b"]
    assert public_classes()["Twin"] == ["kerncraft.models.a", "kerncraft.report.text"]
    assert len(model_tables()) == 2                             # the dict and the string
    assert ("kerncraft.models", "kerncraft.report") in import_graph()[0].edges
