"""Kernel descriptions: Kerncraft's YAML format for kernels that are not restricted C.

A description names what the data-traffic models need and nothing else::

    arrays:                        # name: element type and sizes (null: a scalar)
        a: {type: double, dimension: [M, N]}
        s: {type: double, dimension: null}
    loops:                         # outermost first; stop is exclusive, step defaults to 1
        - {index: j, start: 1, stop: M-1, step: 1}
        - {index: i, start: 1, stop: N-1, step: 1}
    data sources:                  # reads per innermost iteration (null: a scalar)
        a: [[j, i-1], [j, i+1], [j-1, i], [j+1, i]]
        s: [null]
    data destinations:             # writes per innermost iteration
        b: [[j, i]]
    flops: {"+": 3, "*": 1}        # per innermost iteration; may be empty
    code: ...                      # decorative (as in Kerncraft), ignored

:func:`parse_kernel_description` reads it into the same
:class:`~kerncraft.kernel.model.KernelModel` the C front end builds (same symbols,
linear indices and offsets, accesses reads first and writes last as for one C
statement), so LC, SIM, ECMData and RooflineFLOP run on it unchanged. Its ``source``
is the YAML text (it keys the caches of the symbolic layer conditions and of finished
points, as a C kernel's text does); it has no C code, so models that compile the loop
(ECM, ECMCPU, RooflineASM, Benchmark) are refused by :func:`check_models_for`. Every
missing or ill-typed field is one :class:`~kerncraft.errors.KernelError` naming the
file, line, column and field (``2d-5pt.yml:18:13: loops[0].stop: ...``), found on the
YAML node graph (ruamel.yaml's composer keeps each node's position). As in Kerncraft, a
repeated access is listed once, and unknown fields are ignored.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Iterable, Sequence

import sympy

from kerncraft.errors import KernelError, SourceLocation
from kerncraft.kernel.description_exprs import (ExpressionError, expression_text,
                                                integer_expression)
from kerncraft.kernel.indices import affine_violation, constant_offset, linear_index
from kerncraft.kernel.model import ELEMENT_SIZES, Access, Array, Constant, KernelModel, Loop
from kerncraft.userfiles import BOM, display_name

__all__ = ["CODE_FREE_MODELS", "is_description_source", "parse_kernel_description",
           "check_models_for", "parse_any_kernel"]

#: Models that need no C code: they see only the traffic and the flops.
CODE_FREE_MODELS = ("ECMData", "RooflineFLOP", "LC")
_FIELDS = ("arrays", "loops", "data sources", "data destinations", "flops")
_FLOP_ORDER = ("+", "-", "*", "/")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT = re.compile(r"[-+]?[0-9]+")
_C_LOOP = re.compile(r"\bfor\s*\(")


def is_description_source(source: str) -> bool:
    """Whether a kernel model's ``source`` is a kernel description (YAML) rather than C.

    Every description has 'data sources' and 'data destinations' (restricted C cannot
    hold those words outside comments), so C kernels are told apart by two substring
    tests; a text with both is confirmed by composing it as YAML.
    """
    if "data sources" not in source or "data destinations" not in source:
        return False
    try:
        root = _compose(source, None)
    except KernelError:
        return False
    return root.id == "mapping" and any(key.id == "scalar" and key.value == "loops"
                                        for key, _ in root.value)


def check_models_for(kernel: KernelModel, models: Iterable[str]) -> None:
    """Refuse, in one line, a model that compiles the loop when ``kernel`` is a description."""
    needing = [m for m in models if m not in CODE_FREE_MODELS]
    if needing and is_description_source(kernel.source):
        raise KernelError(
            f"model {needing[0]} needs the kernel's C code (it compiles the loop for the "
            f"in-core part); a kernel description supports {', '.join(CODE_FREE_MODELS)}",
            SourceLocation(kernel.filename))


def parse_kernel_description(text: str, filename: str | None = None) -> KernelModel:
    """The :class:`KernelModel` of a kernel description's YAML ``text``.

    >>> k = parse_kernel_description("arrays: {a: {type: double, dimension: [N]}}\\n"
    ...     "loops: [{index: i, start: 0, stop: N}]\\ndata sources: {a: [[i+1]]}\\n"
    ...     "data destinations: {a: [[i]]}\\nflops: {'+': 1}\\n")
    >>> [(a.array, a.kind, a.offset) for a in k.accesses], k.flops, k.constant_names
    ([('a', 'read', 1), ('a', 'write', 0)], {'+': 1}, ('N',))
    """
    filename = display_name(filename) if filename is not None else None
    if text.startswith(BOM):
        text = text[1:]
    try:
        root = _compose(text, filename)
        if root.id != "mapping":
            raise _Node(root, "", filename).error(
                f"a kernel description is a YAML mapping with the fields {', '.join(_FIELDS)}")
    except KernelError as exc:
        if _C_LOOP.search(text):
            exc.notes = ("this looks like a C kernel: those are read without "
                         "--kernel-description and without a .yml/.yaml suffix",)
        raise
    return _Builder(filename, text).build(_Node(root, "", filename))


# --- located YAML nodes -----------------------------------------------------------------
def _compose(text: str, filename: str | None):
    """The node graph of ``text`` (pure-Python composer: deep nesting stays a Python error)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        root = YAML(typ="safe", pure=True).compose(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        where = SourceLocation(filename, mark.line + 1, mark.column + 1) if mark else \
            SourceLocation(filename)
        raise KernelError(f"invalid YAML in kernel description: {problem}", where) from None
    except RecursionError:
        raise KernelError("kernel description nested too deeply", SourceLocation(filename)) \
            from None
    if root is None:
        raise KernelError("empty kernel description", SourceLocation(filename, 1, 1))
    return root


class _Node:
    """A YAML node with its field path (``loops[1].stop``) and file, for located errors."""

    __slots__ = ("node", "path", "file")

    def __init__(self, node, path: str, file: str | None):
        self.node, self.path, self.file = node, path, file

    def error(self, message: str, path: str | None = None) -> KernelError:
        mark = self.node.start_mark
        field = path if path is not None else self.path
        return KernelError(f"{field}: {message}" if field else message,
                           SourceLocation(self.file, mark.line + 1, mark.column + 1))

    def _child(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    @property
    def kind(self) -> str:
        return self.node.id      # 'scalar' | 'sequence' | 'mapping'

    def scalar(self) -> str | int | bool | None:
        """The YAML 1.2 core value of a scalar (quoted text stays text)."""
        if self.kind != "scalar":
            raise self.error(f"expected a single value, got a {self.kind}")
        value = self.node.value
        if self.node.style not in (None, ""):
            return value
        if value in ("", "~", "null", "Null", "NULL"):
            return None
        if value in ("true", "True", "TRUE", "false", "False", "FALSE"):
            return value.lower() == "true"
        # longer digit strings stay text: Python refuses to convert them (and the
        # expression parser reports them)
        return int(value) if _INT.fullmatch(value) and len(value) < 1000 else value

    @property
    def is_null(self) -> bool:
        return self.kind == "scalar" and self.scalar() is None

    def pairs(self, what: str = "a mapping") -> list[tuple[str, "_Node", "_Node"]]:
        """(key, key node, value node) of a mapping, in file order; keys are names."""
        if self.kind != "mapping":
            raise self.error(f"expected {what}, got {self.describe()}")
        out: list[tuple[str, _Node, _Node]] = []
        for key_node, value_node in self.node.value:
            key = _Node(key_node, self.path, self.file)
            name = key.scalar() if key.kind == "scalar" else None
            if not isinstance(name, (str, int)) or isinstance(name, bool):
                raise key.error("unsupported key")
            name = str(name)
            if any(name == seen for seen, _, _ in out):
                raise key.error(f"duplicate key '{name}'", self._child(name))
            out.append((name, _Node(key_node, self._child(name), self.file),
                        _Node(value_node, self._child(name), self.file)))
        return out

    def require(self, key: str, hint: str = "") -> "_Node":
        for name, _, value in self.pairs():
            if name == key:
                return value
        raise self.error(f"missing required field '{key}'{hint}", self._child(key))

    def get(self, key: str) -> "_Node | None":
        return next((value for name, _, value in self.pairs() if name == key), None)

    def items(self, what: str = "a list") -> list["_Node"]:
        if self.kind != "sequence":
            raise self.error(f"expected {what}, got {self.describe()}")
        return [_Node(n, f"{self.path}[{i}]", self.file) for i, n in enumerate(self.node.value)]

    def describe(self) -> str:
        return repr(self.node.value) if self.kind == "scalar" else f"a {self.kind}"


# --- the model builder ------------------------------------------------------------------
class _Builder:
    """Reads the fields of one description in order; produces the frozen model."""

    def __init__(self, filename: str | None, text: str):
        self.filename, self.text = filename, text
        self.arrays: dict[str, Array] = {}
        self.constants: dict[str, Constant] = {}
        self.index_names: set[str] = set()
        self.loops: list[Loop] = []

    def build(self, root: _Node) -> KernelModel:
        loop_nodes = root.require("loops").items("a list of loops")
        if not loop_nodes:
            raise root.require("loops").error("a kernel is a loop nest: list at least one loop")
        self.index_names = {self._index_name(n) for n in loop_nodes}   # checked in order below
        for name, key, value in root.require("arrays").pairs("a mapping of arrays"):
            self._array(name, key, value)
        for node in loop_nodes:
            self._loop(node)
        reads = self._accesses(root.require("data sources"), "read")
        writes = self._accesses(root.require("data destinations"), "write")
        flops = self._flops(root.require("flops", " (write 'flops: {}' for none)"))
        return KernelModel(
            filename=self.filename, source=self.text, constants=tuple(self.constants.values()),
            arrays=dict(self.arrays), loops=tuple(self.loops), accesses=reads + writes,
            flops=flops, math_calls={})

    # --- names and expressions ------------------------------------------------------------
    def _name(self, node: _Node, text, what: str) -> str:
        if not isinstance(text, str) or not _NAME.fullmatch(text):
            raise node.error(f"{what} must be a name (letters, digits, _), got {text!r}")
        return text

    def _index_name(self, loop: _Node) -> str:
        index = loop.require("index")
        return self._name(index, index.scalar(), "a loop index")

    def _expression(self, node: _Node, what: str, indices: Sequence[Loop]) -> sympy.Expr:
        """``node``'s integer expression; names are ``indices`` or constants."""
        text = node.scalar()
        if text is None or isinstance(text, bool):
            raise node.error(f"expected an integer expression for the {what}, got "
                             f"{node.describe()}")
        visible = {lp.index: lp.symbol for lp in indices}

        def resolve(name: str) -> sympy.Expr:
            if name in visible:
                return visible[name]
            if name in self.index_names:
                raise ExpressionError(f"loop index '{name}' cannot appear in the {what}")
            if name in self.arrays or not _NAME.fullmatch(name):
                raise ExpressionError(f"'{name}' cannot appear in the {what}: only loop "
                                      "indices, constants and integers can")
            return self._constant(name, node)

        symbols = frozenset(visible.values())
        try:
            expr = integer_expression(text, resolve, symbols)
        except ExpressionError as exc:
            raise node.error(str(exc)) from None
        reason = affine_violation(expr, symbols)
        if reason is not None:
            raise node.error(f"'{expression_text(str(text))}' ({what}) is not affine in the "
                             f"loop indices ({reason})")
        return expr

    def _constant(self, name: str, node: _Node) -> sympy.Symbol:
        const = self.constants.get(name)
        if const is None:
            mark = node.node.start_mark
            const = Constant(name, sympy.Symbol(name, integer=True, positive=True),
                             mark.line + 1, mark.column + 1)
            self.constants[name] = const
        return const.symbol

    # --- arrays and loops -----------------------------------------------------------------
    def _array(self, name: str, key: _Node, spec: _Node) -> None:
        self._name(key, name, "an array name")
        if name in self.index_names:
            raise key.error(f"'{name}' is already a loop index")
        if name in self.constants:
            raise key.error(f"'{name}' is used as a constant in an array size above")
        ctype = _element_type(spec.require("type"))
        dim_node = spec.require("dimension", " (null for a scalar)")
        if dim_node.is_null:
            dims: tuple[sympy.Expr, ...] = ()
        else:
            nodes = dim_node.items() if dim_node.kind == "sequence" else [dim_node]
            dims = tuple(self._size(n, name) for n in nodes)
        mark = key.node.start_mark
        self.arrays[name] = Array(name, ctype, ELEMENT_SIZES[ctype], dims,
                                  mark.line + 1, mark.column + 1)

    def _size(self, node: _Node, name: str) -> sympy.Expr:
        size = self._expression(node, f"size of array '{name}'", ())
        if size.is_number and size <= 0:
            raise node.error(f"array '{name}' has non-positive size {size}")
        return size

    def _loop(self, node: _Node) -> None:
        name = self._index_name(node)
        if any(lp.index == name for lp in self.loops):
            raise node.require("index").error(f"loop index '{name}' is used by an outer loop")
        start = self._expression(node.require("start"), f"start of loop '{name}'", self.loops)
        stop = self._expression(node.require("stop"), f"stop of loop '{name}'", self.loops)
        step_node = node.get("step")
        step = 1
        if step_node is not None:
            value = self._expression(step_node, f"step of loop '{name}'", ())
            if not value.is_Integer or value == 0:
                raise step_node.error(f"the step of loop '{name}' must be a non-zero integer")
            step = int(value)
        self.loops.append(Loop(name, sympy.Symbol(name, integer=True), start, stop, step,
                               node.node.start_mark.line + 1))

    # --- accesses and flops ---------------------------------------------------------------
    def _accesses(self, field: _Node, kind: str) -> tuple[Access, ...]:
        if field.is_null:
            return ()
        out: dict[tuple, Access] = {}
        for name, key, entries in field.pairs("a mapping of arrays to lists of indices"):
            array = self.arrays.get(name)
            if array is None:
                raise key.error(f"'{name}' is not declared under 'arrays'")
            for entry in entries.items("a list of index lists"):
                access = self._access(array, entry, kind)
                # a set in Kerncraft: a repeated access is listed once
                out.setdefault((name, access.indices), access)
        return tuple(out.values())

    def _access(self, array: Array, entry: _Node, kind: str) -> Access:
        dims = len(array.dimensions)
        if entry.is_null or (entry.kind == "sequence" and not entry.node.value):
            nodes: list[_Node] = []
        else:
            nodes = entry.items() if entry.kind == "sequence" else [entry]
        if len(nodes) != dims:
            want = "null (a scalar)" if not dims else f"{dims} ind{'ex' if dims == 1 else 'ices'}"
            raise entry.error(f"'{array.name}' needs {want}, got {len(nodes)}")
        indices = tuple(self._expression(n, f"index of '{array.name}'", self.loops)
                        for n in nodes)
        linear = linear_index(indices, array.dimensions)
        mark = entry.node.start_mark
        return Access(array.name, kind, indices, linear,
                      constant_offset(linear, [lp.symbol for lp in self.loops]),
                      mark.line + 1, mark.column + 1)

    def _flops(self, field: _Node) -> dict[str, int]:
        if field.is_null:
            return {}
        counts: Counter = Counter()
        for op, key, value in field.pairs("a mapping of operators to counts"):
            if op not in _FLOP_ORDER:
                raise key.error(f"unknown operator '{op}' (count '+', '-', '*', '/'; an "
                                "FMA is one '+' and one '*')")
            count = value.scalar()
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise value.error(f"expected a count (integer >= 0), got {value.describe()}")
            counts[op] = count
        return {op: counts[op] for op in _FLOP_ORDER if counts[op]}


def _element_type(node: _Node) -> str:
    """'double', 'float', 'int' or 'long' (a list of words as Kerncraft's tuples)."""
    words = [n.scalar() for n in node.items()] if node.kind == "sequence" else [node.scalar()]
    ctype = " ".join(str(w) for w in words)
    if ctype not in ELEMENT_SIZES:
        raise node.error(f"type '{ctype}' is not supported (use double, float, int or long)")
    return ctype


def parse_any_kernel(source: str, filename: str | None = None) -> KernelModel:
    """A C kernel or a kernel description, told apart by its text
    (:func:`is_description_source`): for code that has only a model's ``source``
    (a worker re-reading the kernel it was sent)."""
    if is_description_source(source):
        return parse_kernel_description(source, filename)
    from kerncraft.kernel.parser import parse_kernel

    return parse_kernel(source, filename)
