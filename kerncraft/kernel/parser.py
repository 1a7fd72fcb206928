"""Restricted-C99 kernel front end: source text -> :class:`KernelModel`.

A kernel file holds declarations (scalars and fixed-size arrays of double,
float, int, long), one loop nest of ``for`` loops, and statements. Identifiers
that are used but never declared (``N``, ``M``) are the kernel's constants,
bound later with -D. The file is not a complete C program, so it is wrapped
into a function body before pycparser sees it (see :mod:`.source`).

The analysis is split over a few modules: :mod:`.source` (comments, pragmas,
wrapping), :mod:`.indices` (integer expressions, affinity), :mod:`.body`
(statements: accesses, flops, types) and this module (declarations, the loop
nest and its headers). Anything outside the subset raises
:class:`~kerncraft.errors.KernelError` located in the user's file, because a
silently mis-analysed kernel gives a confident but wrong prediction.
"""
from __future__ import annotations

import threading

import re
from collections import Counter

import sympy
from pycparser import c_ast

from kerncraft.errors import KernelError, SourceLocation
from kerncraft.kernel import source as _source
from kerncraft.kernel.body import BodyAnalyzer
from kerncraft.kernel.cnodes import element_type, fail, location, node_text
from kerncraft.kernel.indices import IntExprBuilder, require_affine
from kerncraft.userfiles import BOM, display_name
from kerncraft.kernel.model import ELEMENT_SIZES, Access, Array, Constant, KernelModel, Loop

_FLOP_ORDER = ("+", "-", "*", "/")
_COND_OPS = frozenset({"<", "<=", ">", ">=", "!="})
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}

_parsers = threading.local()


def parse_kernel(source: str, filename: str | None = None) -> KernelModel:
    """Parse restricted-C99 kernel ``source`` into a frozen :class:`KernelModel`.

    ``filename`` is only used in error locations and reports.
    """
    from kerncraft.kernel.limits import deep_recursion, too_deep_error

    # the name is a label: bytes that are not UTF-8 are shown escaped, so that
    # reports, the generated program and cache keys can encode it
    filename = display_name(filename) if filename is not None else None
    if source.startswith(BOM):     # as read_kernel_file does for files
        source = source[1:]
    text, wrapped, pragmas = _source.prepare(source, filename)
    try:
        with deep_recursion():   # long expressions: see kerncraft.kernel.limits
            ast = _parse_c(wrapped, text, filename)
            items = _kernel_items(ast)
            return _KernelBuilder(filename, source, pragmas).build(items)
    except RecursionError:
        raise too_deep_error(text, filename) from None


# --- pycparser driving --------------------------------------------------------
def _c_parser():
    """One parser per thread: building pycparser 2.x tables is not free, and a
    CParser keeps per-parse state, so threads must not share one."""
    parser = getattr(_parsers, "instance", None)     # a thread-local: unset in a new thread
    if parser is None:
        from pycparser import c_parser

        parser = _parsers.instance = c_parser.CParser()
    return parser


def _parse_c(wrapped: str, text: str, filename: str | None):
    from pycparser import c_parser

    from kerncraft.kernel.limits import check_nesting

    _source.check_braces(text, filename)   # a stray '}' would close the wrapper
    check_nesting(text, filename)
    parser = _c_parser()
    try:
        return parser.parse(wrapped, filename=_source.LINE_FILE)
    except c_parser.ParseError as err:
        raise _translate_parse_error(str(err), parser, text, filename) from None


_ERR_RE = re.compile(r"^(?P<file>[^\n]*?):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<msg>.*)$", re.S)


def _translate_parse_error(message: str, parser, text: str, filename: str | None) -> KernelError:
    """Turn pycparser's 'file:line:col: msg' into a located KernelError."""
    line = col = None
    match = _ERR_RE.match(message)
    if match:
        line, msg = int(match["line"]), match["msg"]
        col = int(match["col"]) if match["col"] else None
    else:
        msg = message.split(": ", 1)[-1]
        if msg != "At end of input":
            line, col = _current_token_position(parser)   # before the parser is reused
    funcdef = _find_function_definition(text)
    if funcdef is not None:
        return KernelError("function definitions are not supported: write the declarations "
                           "and the loop nest at file level, without a function",
                           SourceLocation(filename, *funcdef))
    n_lines = text.count("\n") + 1
    if line is None or line > n_lines:   # error at the wrapper's closing brace
        line, col = _last_code_line(text), None
    if msg.startswith("before: "):
        msg = f"C syntax error before '{msg[len('before: '):]}'"
    elif msg == "At end of input":
        msg = "C syntax error: unexpected end of input (missing ';' or '}'?)"
    else:
        msg = f"C syntax error: {msg[:1].lower()}{msg[1:]}"
    return KernelError(msg, SourceLocation(filename, line, col))


def _current_token_position(parser) -> tuple[int | None, int | None]:
    """Where pycparser 3.x stopped, for its few errors that carry no coordinate.

    Backtracking may have rewound the token stream, so the furthest token the
    lexer produced (the parser's look-ahead at the failure) is the best guess.
    """
    try:
        buffered = [tok for tok in parser._tokens._buffer if tok is not None]
        if not buffered:
            return None, None
        coord = parser._tok_coord(buffered[-1])
        return coord.line, coord.column
    except Exception:  # pragma: no cover - other pycparser versions
        return None, None


def _last_code_line(text: str) -> int:
    lines = text.split("\n")
    for number in range(len(lines), 0, -1):
        if lines[number - 1].strip():
            return number
    return 1


def _find_function_definition(text: str) -> tuple[int, int] | None:
    """Line/col of a function definition if ``text`` parses as a file of them."""
    from pycparser import c_parser

    try:
        ast = _c_parser().parse(text, filename=_source.LINE_FILE)
    except c_parser.ParseError:
        return None
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef):
            coord = ext.decl.coord
            return (coord.line, coord.column) if coord else (1, 1)
    return None


def _kernel_items(ast) -> list:
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef) and ext.decl.name == _source.WRAPPER_NAME:
            return list(ext.body.block_items or [])
    raise KernelError("internal error: kernel wrapper not found")  # pragma: no cover


def flatten(stmt) -> list:
    """Statements of a (possibly nested) compound block, in order."""
    if stmt is None:
        return []
    if isinstance(stmt, c_ast.Compound):
        out: list = []
        for item in stmt.block_items or []:
            out.extend(flatten(item))
        return out
    return [stmt]


# --- the model builder -----------------------------------------------------------
class _KernelBuilder:
    """Mutable state while walking one kernel; produces the frozen model."""

    def __init__(self, filename: str | None, source: str, pragmas: tuple[str, ...]):
        self.filename = filename
        self.source = source
        self.pragmas = pragmas
        self.arrays: dict[str, Array] = {}
        self.constants: dict[str, Constant] = {}
        self.loops: list[Loop] = []
        self.active: dict[str, Loop] = {}
        self.index_names: set[str] = set()
        self.header_index: str | None = None
        self.accesses: list[Access] = []
        self.outer_accesses: list[Access] = []
        self.flops: Counter = Counter()
        self.math_calls: Counter = Counter()

    def build(self, items: list) -> KernelModel:
        nest = None
        top = BodyAnalyzer(self, innermost=False, in_nest=False)
        swaps: list[tuple[str, str]] = []
        for item in items:
            if isinstance(item, c_ast.For):
                if nest is not None:
                    raise fail("only one loop nest per kernel is supported (a second "
                               "top-level for loop starts here)", self.filename, item)
                nest = item
                self.loop(item)
            elif swap_arguments(item) is not None:
                swaps.append(self.swap(item, after_nest=nest is not None))
            else:
                top.statement(item)
        if nest is None:
            raise KernelError("kernel contains no for loop; a kernel must be a loop nest",
                              SourceLocation(self.filename, 1, 1))
        from kerncraft.kernel.nontemporal import mark_nontemporal

        arrays = mark_nontemporal(self.arrays, self.accesses, self.pragmas, self.source,
                                  self.filename)
        return KernelModel(
            filename=self.filename, source=self.source,
            constants=tuple(self.constants.values()), arrays=arrays,
            loops=tuple(self.loops), accesses=tuple(self.accesses),
            flops={op: self.flops[op] for op in _FLOP_ORDER if self.flops[op]},
            math_calls=dict(self.math_calls), pragmas=self.pragmas,
            # a scalar later claimed as loop counter (``int i = 0;``) is not data
            outer_accesses=tuple(a for a in self.outer_accesses if a.array in self.arrays),
            swaps=tuple(swaps))

    def swap(self, item, after_nest: bool) -> tuple[str, str]:
        """``swap(a, b);`` after the nest, between two arrays of one type and shape."""
        first, second = swap_arguments(item)
        arrays = [self.arrays.get(first), self.arrays.get(second)]
        if not after_nest:
            raise fail("swap(...) is only supported after the loop nest", self.filename, item)
        if None in arrays or arrays[0].is_scalar or arrays[1].is_scalar:
            raise fail(f"swap({first}, {second}) needs two declared arrays", self.filename, item)
        if (arrays[0].ctype, arrays[0].dimensions) != (arrays[1].ctype, arrays[1].dimensions):
            raise fail(f"swap({first}, {second}) needs arrays of one type and shape",
                       self.filename, item)
        return first, second

    # --- names ------------------------------------------------------------------
    def constant(self, node: c_ast.ID) -> sympy.Symbol:
        """Symbol of constant ``node.name``, registering it at its first use."""
        const = self.constants.get(node.name)
        if const is None:
            loc = location(self.filename, node)
            const = Constant(node.name, sympy.Symbol(node.name, integer=True, positive=True),
                             loc.line, loc.col)
            self.constants[node.name] = const
        return const.symbol

    def resolve_int(self, node: c_ast.ID, what: str) -> sympy.Expr:
        """Meaning of an identifier inside an integer expression (size, bound, index)."""
        name = node.name
        if name in self.active:
            return self.active[name].symbol
        if name == self.header_index:
            raise fail(f"the {what} of loop '{name}' must not depend on '{name}' itself",
                       self.filename, node)
        if name in self.index_names:
            raise fail(f"loop index '{name}' is used outside its loop", self.filename, node)
        arr = self.arrays.get(name)
        if arr is not None and arr.is_scalar:
            raise fail(f"variable '{name}' cannot be used in {what}: only loop indices, "
                       "constants (undeclared names, bound with -D) and integer literals "
                       "are allowed", self.filename, node)
        if arr is not None:
            raise fail(f"array '{name}' used without subscript in {what}",
                       self.filename, node)
        return self.constant(node)

    def int_expr(self, node, what: str) -> sympy.Expr:
        builder = IntExprBuilder(self.filename, self.resolve_int,
                                 [lp.symbol for lp in self.active.values()])
        expr = builder.build(node, what)
        require_affine(expr, [lp.symbol for lp in self.active.values()], node, what,
                       self.filename)
        return expr

    # --- declarations -------------------------------------------------------------
    def declare(self, decl: c_ast.Decl, in_nest: bool) -> Array:
        """Register a scalar or array declaration; return it (initialiser not handled)."""
        name = decl.name
        if name is None:
            raise fail("declarations without a name (struct/union/enum types) are not "
                       "supported", self.filename, decl)
        dims_nodes: list = []
        node = decl.type
        while isinstance(node, c_ast.ArrayDecl):
            if node.dim is None:
                raise fail(f"array '{name}' needs an explicit size", self.filename, decl)
            dims_nodes.append(node.dim)
            node = node.type
        if isinstance(node, c_ast.PtrDecl):
            raise fail(f"pointer declaration of '{name}' is not supported: declare "
                       "arrays with explicit sizes (e.g. double a[N])", self.filename, decl)
        if isinstance(node, c_ast.FuncDecl):
            raise fail(f"function declaration of '{name}' is not supported; only math "
                       "functions may be called", self.filename, decl)
        inner = node.type
        if not isinstance(inner, c_ast.IdentifierType):
            kind = type(inner).__name__.lower()
            raise fail(f"{kind} types are not supported (declaration of '{name}'); use "
                       "double, float, int or long", self.filename, decl)
        ctype = element_type(inner.names, self.filename, decl)
        self._check_new_name(name, decl)
        if dims_nodes and in_nest:
            raise fail(f"array '{name}' must be declared before the loop nest",
                       self.filename, decl)
        if dims_nodes and decl.init is not None:
            raise fail(f"array initialisers are not supported (array '{name}')",
                       self.filename, decl.init)
        dims = tuple(self._array_size(d, name) for d in dims_nodes)
        loc = location(self.filename, decl)
        arr = Array(name, ctype, ELEMENT_SIZES[ctype], dims, loc.line, loc.col)
        self.arrays[name] = arr
        return arr

    def _check_new_name(self, name: str, node) -> None:
        if name in self.arrays:
            raise fail(f"'{name}' is declared twice", self.filename, node)
        if name in self.index_names:
            raise fail(f"'{name}' is already a loop index", self.filename, node)
        if name in self.constants:
            const = self.constants[name]
            raise fail(f"'{name}' is declared after its use at line {const.line}, where it "
                       "was taken for a constant; declare it before use", self.filename, node)

    def _array_size(self, node, name: str) -> sympy.Expr:
        size = self.int_expr(node, "array size")
        if size.is_number and size <= 0:
            raise fail(f"array '{name}' has non-positive size {size}", self.filename, node)
        return size

    # --- loops --------------------------------------------------------------------
    def loop(self, node: c_ast.For) -> None:
        loop = self._loop_header(node)
        self.loops.append(loop)
        self.active[loop.index] = loop
        stmts = flatten(node.stmt)
        inner = [s for s in stmts if isinstance(s, c_ast.For)]
        if len(inner) > 1:
            raise fail("only one loop per nesting level is supported (a second loop "
                       f"inside loop '{loop.index}' starts here)", self.filename, inner[1])
        body = BodyAnalyzer(self, innermost=not inner, in_nest=True)
        for stmt in stmts:
            if isinstance(stmt, c_ast.For):
                self.loop(stmt)
            else:
                body.statement(stmt)
        del self.active[loop.index]

    def _loop_header(self, node: c_ast.For) -> Loop:
        name, start = self._loop_init(node)
        self.header_index = name
        try:
            end, direction = self._loop_cond(node, name)
            step = self._loop_step(node, name)
        finally:
            self.header_index = None
        if direction * step < 0:
            want = "positive" if direction > 0 else "negative"
            raise fail(f"loop '{name}' never ends: its condition needs a {want} step, "
                       f"but the step is {step}", self.filename, node.next)
        self.index_names.add(name)
        return Loop(name, sympy.Symbol(name, integer=True), start, end, step,
                    location(self.filename, node).line)

    def _loop_init(self, node: c_ast.For) -> tuple[str, sympy.Expr]:
        init = node.init
        if isinstance(init, c_ast.DeclList):
            if len(init.decls) != 1:
                raise fail("a for loop may declare only one loop index", self.filename, init)
            decl = init.decls[0]
            ctype = self._index_decl_type(decl)
            if ctype not in ("int", "long") or decl.init is None:
                raise fail(f"loop index '{decl.name}' must be an int or long initialised "
                           "in the for header", self.filename, decl)
            name, value = decl.name, decl.init
        elif isinstance(init, c_ast.Assignment) and init.op == "=" \
                and isinstance(init.lvalue, c_ast.ID):
            name, value = init.lvalue.name, init.rvalue
        else:
            raise fail("the for loop must initialise its index (e.g. 'for (i=0; ...' or "
                       "'for (int i=0; ...')", self.filename, init if init else node)
        self._claim_index(name, node)
        self.header_index = name
        try:
            return name, self.int_expr(value, "loop start")
        finally:
            self.header_index = None

    def _index_decl_type(self, decl: c_ast.Decl) -> str:
        if not isinstance(decl.type, c_ast.TypeDecl) \
                or not isinstance(decl.type.type, c_ast.IdentifierType):
            raise fail(f"loop index '{decl.name}' must be an int or long",
                       self.filename, decl)
        return element_type(decl.type.type.names, self.filename, decl)

    def _claim_index(self, name: str, node) -> None:
        """Check ``name`` may serve as a loop index; drop its scalar declaration."""
        if name in self.active:
            raise fail(f"loop index '{name}' is already used by an enclosing loop",
                       self.filename, node)
        if name in self.constants:
            raise fail(f"'{name}' is used as a constant before it becomes a loop index",
                       self.filename, node)
        arr = self.arrays.get(name)
        if arr is not None:
            if not arr.is_scalar or arr.ctype not in ("int", "long"):
                raise fail(f"loop index '{name}' must be an int or long variable, not "
                           f"{'an array' if not arr.is_scalar else arr.ctype}",
                           self.filename, node)
            del self.arrays[name]   # a loop counter is not data

    def _loop_cond(self, node: c_ast.For, name: str) -> tuple[sympy.Expr, int]:
        cond = node.cond
        if not isinstance(cond, c_ast.BinaryOp) or cond.op not in _COND_OPS:
            raise fail(f"loop condition of '{name}' must compare the index with a bound "
                       "using <, <=, >, >= or !=", self.filename, cond if cond else node)
        if isinstance(cond.left, c_ast.ID) and cond.left.name == name:
            op, bound_node = cond.op, cond.right
        elif isinstance(cond.right, c_ast.ID) and cond.right.name == name:
            op, bound_node = _MIRROR[cond.op], cond.left
        else:
            raise fail(f"loop condition '{node_text(cond)}' must compare the loop index "
                       f"'{name}' with a bound", self.filename, cond)
        bound = self.int_expr(bound_node, "loop bound")
        if op == "<":
            return bound, 1
        if op == "<=":
            return bound + 1, 1
        if op == ">":
            return bound, -1
        if op == ">=":
            return bound - 1, -1
        return bound, 0

    def _loop_step(self, node: c_ast.For, name: str) -> int:
        nxt = node.next
        sign, amount = 0, None
        if isinstance(nxt, c_ast.UnaryOp) and _is_id(nxt.expr, name):
            sign = {"p++": 1, "++": 1, "p--": -1, "--": -1}.get(nxt.op, 0)
            amount = sympy.Integer(1)
        elif isinstance(nxt, c_ast.Assignment) and _is_id(nxt.lvalue, name):
            rhs = nxt.rvalue
            if nxt.op in ("+=", "-="):
                sign, amount = (1 if nxt.op == "+=" else -1), rhs
            elif nxt.op == "=" and isinstance(rhs, c_ast.BinaryOp) and rhs.op in "+-":
                if _is_id(rhs.left, name):
                    sign, amount = (1 if rhs.op == "+" else -1), rhs.right
                elif rhs.op == "+" and _is_id(rhs.right, name):
                    sign, amount = 1, rhs.left
        if not sign:
            raise fail(f"unsupported increment of loop '{name}'; use {name}++, {name}--, "
                       f"{name}+=k, {name}-=k or {name}={name}+k", self.filename,
                       nxt if nxt else node)
        if not isinstance(amount, sympy.Integer):
            amount = IntExprBuilder(self.filename, self._no_symbol_step, ()).build(
                amount, "loop step")
        if not amount.is_Integer:
            raise fail(f"loop step of '{name}' must be a constant integer", self.filename, nxt)
        step = sign * int(amount)
        if step == 0:
            raise fail(f"loop step of '{name}' is zero", self.filename, nxt)
        return step

    def _no_symbol_step(self, node: c_ast.ID, what: str) -> sympy.Expr:
        raise fail(f"loop step must be a constant integer, not '{node.name}' (non-constant "
                   "steps are not supported)", self.filename, node)


def _is_id(node, name: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == name


def swap_arguments(item) -> tuple[str, str] | None:
    """The two names of a ``swap(a, b);`` statement (Kerncraft's examples swap the
    arrays of a time step after the nest), else None."""
    if not (isinstance(item, c_ast.FuncCall) and isinstance(item.name, c_ast.ID)
            and item.name.name == "swap" and item.args is not None):
        return None
    args = item.args.exprs
    if len(args) != 2 or not all(isinstance(a, c_ast.ID) for a in args):
        return None
    return args[0].name, args[1].name
