"""Machine-file YAML as located nodes: composition and a cursor that knows its path.

A machine file is written by hand, so errors must say where they are. The YAML
is *composed* into a node graph (each node knows its line and column) and
walked with :class:`Field` cursors that remember their YAML path
(``memory hierarchy[1].cache per group.ways``); scalars are converted here with
the YAML 1.2 core schema. :mod:`kerncraft.machine.loader` builds the
:class:`~kerncraft.machine.model.MachineModel` from these cursors; the reasons
and the speed notes are in its module docstring.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, Protocol, TypeVar

from kerncraft import units
from kerncraft.errors import MachineFileError, SourceLocation, UnitError

__all__ = ["BACKENDS", "Field", "YamlNode", "Scalar", "compose", "blank_unused_blocks",
           "plain_data",
           "optional", "names"]

#: A scalar after the YAML 1.2 core schema.
Scalar = str | int | float | bool | None
_T = TypeVar("_T")


class YamlMark(Protocol):
    """Where a node starts (0-based, as both YAML libraries count)."""

    @property
    def line(self) -> int: ...

    @property
    def column(self) -> int: ...


class YamlNode(Protocol):
    """A composed node of either YAML library (ruamel, or PyYAML's libyaml binding)."""

    @property
    def id(self) -> str: ...                 # 'scalar' | 'sequence' | 'mapping'

    @property
    def tag(self) -> str: ...

    @property
    def style(self) -> str | None: ...       # a quoted scalar's quote, else None or ''

    @property
    def start_mark(self) -> YamlMark: ...

    # scalar: its text; sequence: the item nodes; mapping: (key node, value node) pairs
    @property
    def value(self) -> Any: ...


# ------------------------------------------------------------ YAML composition

def _pick_backends() -> tuple[dict[str, Callable[[str], YamlNode]],
                              tuple[type[Exception], ...]]:
    """Composers by name (fastest first) and the exceptions they raise. ruamel is
    imported only when its composer runs (PyYAML's libyaml binding, when installed,
    does all the work; ruamel's import alone costs ~10 ms)."""
    backends: dict[str, Callable[[str], YamlNode]] = {}
    errors: list[type[Exception]] = []
    try:
        import yaml  # PyYAML, only as an optional libyaml accelerator
        if hasattr(yaml, "CSafeLoader"):
            backends["libyaml"] = lambda text: yaml.compose(text, Loader=yaml.CSafeLoader)
            errors.append(yaml.YAMLError)
    except ImportError:
        pass
    backends["ruamel"] = _ruamel_compose
    return backends, tuple(errors)


@functools.lru_cache(maxsize=1)
def _ruamel() -> tuple[Any, type[Exception]]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError
    return YAML(typ="safe"), YAMLError


def _ruamel_compose(text: str) -> YamlNode:
    return _ruamel()[0].compose(text)


def _yaml_errors() -> tuple[type[Exception], ...]:
    """The YAML libraries' error types, ruamel's once it was imported."""
    errors = _backends()[1]
    return errors + (_ruamel()[1],) if _ruamel.cache_info().currsize else errors


@functools.lru_cache(maxsize=1)
def _backends() -> tuple[dict[str, Callable[[str], YamlNode]], tuple[type[Exception], ...]]:
    # chosen on first use: a machine model read from the disk cache needs no YAML library
    return _pick_backends()


def __getattr__(name: str) -> Any:
    if name == "BACKENDS":      # available composers, fastest first; tests may pick one
        return _backends()[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def compose(text: str, path: str | None, backend: str | None = None) -> YamlNode:
    """The node graph of ``text``; nesting deeper than MAX_DEPTH and every YAML
    error are a located MachineFileError (see :func:`check_depth`)."""
    check_depth(text, path)
    backends = _backends()[0]
    compose = backends[backend or next(iter(backends))]
    try:
        return compose(text)
    except _yaml_errors() as exc:
        # the YAML libraries' errors differ: marks, a reader's position, or neither
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        line = mark.line + 1 if mark is not None else None
        col = mark.column + 1 if mark is not None else None
        position = getattr(exc, "position", None)   # a reader error: bad character
        if mark is None and isinstance(position, int):
            line = text.count("\n", 0, position) + 1
            col = position - (text.rfind("\n", 0, position) + 1) + 1
            # our own words: libyaml and ruamel phrase the reason differently
            char = getattr(exc, "character", 0)
            char = ord(char) if isinstance(char, str) else int(char)
            kind = ("control characters are not allowed" if char < 0x20 or 0x7F <= char <= 0x9F
                    else "not allowed in YAML")
            problem = f"character U+{char:04X} is not allowed ({kind})"
        raise MachineFileError(f"invalid YAML: {problem}", SourceLocation(path, line, col)) from exc


#: Deepest nesting of YAML collections a machine file may use (real files: about 6).
#: Deeper input made the composers recurse until Python's limit, or libyaml's C
#: stack overflow (a segmentation fault at 50,000 nested '[').
MAX_DEPTH = 64


def check_depth(text: str, path: str | None) -> None:
    """Reject collections nested more than MAX_DEPTH levels, located at the first
    node beyond. Counts flow brackets (outside quoted scalars, which may span
    lines, and comments) plus block levels (one per deeper indentation and per
    '- ' that opens a sequence entry)."""
    indents: list[int] = []
    flow, quote = 0, None
    for line_no, line in enumerate(text.split("\n"), start=1):
        body = line.lstrip(" ")
        if flow == 0 and quote is None and body and not body.startswith("#"):
            indent = len(line) - len(body)
            while indents and indents[-1] >= indent:
                indents.pop()
            indents.append(indent)
            dashes = len(body) - len(body.lstrip("- ")) if body.startswith("- ") else 0
            if len(indents) + body[:dashes].count("-") > MAX_DEPTH:
                raise MachineFileError(f"collections nested more than {MAX_DEPTH} levels deep",
                                       SourceLocation(path, line_no, indent + 1))
        flow, quote = _flow_depth(line, line_no, flow, quote, len(indents), path)


def _flow_depth(line: str, line_no: int, flow: int, quote: str | None, block: int,
                path: str | None) -> tuple[int, str | None]:
    """Flow-bracket depth and open quote after ``line`` (quotes and comments skipped)."""
    escaped = False
    for col, ch in enumerate(line, start=1):
        before = line[col - 2] if col > 1 else " "
        if quote:
            if quote == '"' and (escaped or ch == "\\"):
                escaped = not escaped and ch == "\\"
            elif ch == quote:
                quote = None
        elif ch in "\"'" and before in " [{,:":
            quote = ch
        elif ch == "#" and before in " \t":
            break
        elif ch in "[{":
            flow += 1
            if flow + block > MAX_DEPTH:
                raise MachineFileError(f"collections nested more than {MAX_DEPTH} levels deep",
                                       SourceLocation(path, line_no, col))
        elif ch in "]}":
            flow = max(0, flow - 1)
    return flow, quote


_UNUSED_KEY = re.compile(r"^( +)(?:stats|total size):(?:\s.*)?$")


def blank_unused_blocks(text: str) -> str:
    """Blank the lines of nested ``stats:``/``total size:`` entries.

    A value belongs to its key while following lines are blank, comments, or
    indented deeper than the key (block or flow style alike). Lines are
    replaced by empty ones, so line numbers in messages stay right.
    """
    if "stats:" not in text and "total size:" not in text:
        return text
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = _UNUSED_KEY.match(lines[i])
        if not match:
            i += 1
            continue
        indent = len(match.group(1))
        lines[i] = ""
        i += 1
        while i < len(lines):
            stripped = lines[i].lstrip(" ")
            depth = len(lines[i]) - len(stripped)
            if stripped and not stripped.startswith("#") and depth <= indent \
                    and not (depth == indent and stripped.startswith("- ")):
                break
            lines[i] = ""
            i += 1
    return "\n".join(lines)


_NULL = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_INT = re.compile(r"[-+]?[0-9]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_SPECIAL_FLOAT = {".inf": float("inf"), "+.inf": float("inf"), "-.inf": float("-inf"),
                  ".nan": float("nan")}


def _resolve_scalar(node: YamlNode) -> Scalar:
    """YAML 1.2 core-schema value of a scalar node (quoted ones are strings)."""
    value = node.value
    if node.style not in (None, ""):
        return value
    if value in _NULL:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if _INT.fullmatch(value):
        return int(value)
    if value.startswith(("0x", "0o")) and len(value) > 2:
        try:
            return int(value[2:], 16 if value[1] == "x" else 8)
        except ValueError:
            return value
    if _FLOAT.fullmatch(value):
        return float(value)
    return _SPECIAL_FLOAT.get(value.lower(), value)


def plain_data(node: YamlNode, path: str | None = None) -> Any:
    """The node graph as plain Python data: mappings as dicts, sequences as lists,
    scalars by the YAML 1.2 core schema (what ruamel's safe loader gives, at libyaml's
    speed). A key twice in one mapping is a MachineFileError at its second place (as
    ruamel refuses it). Merge keys (``<<``) are not supported: the files read this way
    do not use them."""
    if node.id == "sequence":
        return [plain_data(item, path) for item in node.value]
    if node.id != "mapping":
        return _resolve_scalar(node)
    data: dict = {}
    for key_node, value in node.value:
        key = plain_data(key_node, path)
        if key in data:
            mark = key_node.start_mark
            raise MachineFileError(f"duplicate key {key!r}",
                                   SourceLocation(path, mark.line + 1, mark.column + 1))
        data[key] = plain_data(value, path)
    return data


# ------------------------------------------------------------ node cursor

class Field:
    """A YAML node plus its YAML path and file, with typed accessors.

    All accessors raise MachineFileError pointing at this node.
    """

    __slots__ = ("node", "path", "file", "key_node")

    def __init__(self, node: YamlNode, path: str, file: str | None,
                 key_node: YamlNode | None = None):
        self.node, self.path, self.file, self.key_node = node, path, file, key_node

    # -- errors
    def error(self, message: str, path: str | None = None) -> MachineFileError:
        """Error at this node; ``path`` overrides the YAML path (missing children)."""
        mark = self.node.start_mark
        if self.key_node is not None and self.node.id == "scalar" and self.node.value == "":
            # An empty value has no text of its own; YAML libraries disagree on where it
            # starts (libyaml: after the colon, ruamel: the next line), so point at its key.
            mark = self.key_node.start_mark
        return MachineFileError(message, SourceLocation(self.file, mark.line + 1, mark.column + 1),
                                yaml_path=path or self.path or "<top level>")

    def _child_path(self, key: Scalar) -> str:
        return f"{self.path}.{key}" if self.path else str(key)

    # -- structure
    @property
    def is_null(self) -> bool:
        return self.node.id == "scalar" and _resolve_scalar(self.node) is None

    def pairs(self) -> list[tuple[Scalar, Field]]:
        """Key/value pairs of a mapping or an ``!!omap``, in file order."""
        node = self.node
        if node.id == "sequence" and str(node.tag).endswith(":omap"):
            entries = []
            for item in node.value:
                if item.id != "mapping" or len(item.value) != 1:
                    raise Field(item, self.path, self.file).error(
                        "an !!omap entry must be a single 'key: value' pair")
                entries.append(item.value[0])
        elif node.id == "mapping":
            entries = node.value
        else:
            raise self.error(f"expected a mapping, got {self._describe()}")
        result: list[tuple[Scalar, Field]] = []
        seen: set[Scalar] = set()
        for key_node, value_node in entries:
            key = _resolve_scalar(key_node) if key_node.id == "scalar" else None
            if key is None or key in seen:
                what = "duplicate key" if key is not None else "unsupported key"
                raise Field(key_node, self._child_path(key), self.file).error(what)
            seen.add(key)
            result.append((key, Field(value_node, self._child_path(key), self.file, key_node)))
        return result

    def get(self, key: str) -> Field | None:
        """The value of ``key`` (None if absent or null)."""
        for name, field in self.pairs():
            if name == key:
                return None if field.is_null else field
        return None

    def require(self, key: str) -> Field:
        """The value of ``key``; a missing or empty one is an error."""
        for name, field in self.pairs():
            if name == key:
                if field.is_null:
                    raise field.error(f"required field '{key}' is empty")
                return field
        raise self.error(f"missing required field '{key}'", self._child_path(key))

    def items(self) -> list[Field]:
        if self.node.id != "sequence":
            raise self.error(f"expected a list, got {self._describe()}")
        return [Field(n, f"{self.path}[{i}]", self.file) for i, n in enumerate(self.node.value)]

    def _describe(self) -> str:
        if self.node.id == "scalar":
            return f"{self.node.value!r}"
        return f"a {self.node.id}"

    # -- scalars
    def value(self) -> Scalar:
        if self.node.id != "scalar":
            raise self.error(f"expected a single value, got a {self.node.id}")
        return _resolve_scalar(self.node)

    def as_str(self) -> str:
        value = self.value()
        if value is None or isinstance(value, bool):
            raise self.error(f"expected a name or text, got {self._describe()}")
        return str(value)

    def as_int(self, minimum: int | None = None) -> int:
        value = self.value()
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(f"expected an integer, got {self._describe()}")
        if minimum is not None and value < minimum:
            raise self.error(f"must be at least {minimum}, got {value}")
        return value

    def as_float(self) -> float:
        value = self.value()
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise self.error(f"expected a number, got {self._describe()}")
        return float(value)

    def as_bool(self) -> bool:
        value = self.value()
        if not isinstance(value, bool):
            raise self.error(f"expected true or false, got {self._describe()}")
        return value

    def as_quantity(self, unit: str) -> float:
        value = self.value()
        if value is None or isinstance(value, bool):
            raise self.error(f"expected a quantity in {unit}, got {self._describe()}")
        try:
            return units.parse_quantity(value, unit).value
        except UnitError as exc:
            raise self.error(exc.message) from None


def optional(parent: Field, key: str, convert: Callable[[Field], _T], default: _T | None = None
             ) -> _T | None:
    field = parent.get(key)
    return default if field is None else convert(field)


def names(field: Field) -> tuple[str, ...]:
    return tuple(item.as_str() for item in field.items())
