"""Statements of the loop nest: data accesses, flops and expression types.

Every expression is walked in evaluation order, returning its C type, so that
an operator is counted as a flop exactly when C would evaluate it in floating
point (``i+1`` in an index is integer arithmetic, ``2*a[i]`` is a flop).

Counting rules (per innermost iteration, from the source, before any compiler
optimisation):

* ``+ - * /`` with a floating-point result count one flop each under their
  operator; a compound ``x += y`` counts one ``+`` and reads and writes x.
* unary minus is *not* a flop: compilers implement it as a sign-bit flip
  (xor/and with a mask) on a logic port, not on the FP adder.
* comparisons (in ``?:`` conditions) are not flops either.
* both arms of a ``?:`` are counted (reads and flops), as branch-free
  vectorised code evaluates both and blends.
* calls of math functions go to ``math_calls`` (their cost depends on the
  library, not on a flop count) and their arguments are analysed normally.

Statements outside the innermost loop are analysed the same way but their
accesses go to ``KernelModel.outer_accesses`` and their flops are not counted.
"""
from __future__ import annotations

from collections import Counter
from typing import Protocol

import sympy
from pycparser import c_ast

from kerncraft.kernel.cnodes import FLOATING, arithmetic_type, element_type, fail, literal_type
from kerncraft.kernel.cnodes import location, node_text
from kerncraft.kernel.indices import constant_offset, linear_index
from kerncraft.kernel.model import Access, Array, Loop

_MATH_DOUBLE = frozenset("""
    sqrt cbrt exp exp2 expm1 log log2 log10 log1p pow hypot sin cos tan asin acos atan atan2
    sinh cosh tanh asinh acosh atanh fabs fmin fmax fmod fma floor ceil round trunc erf erfc
    tgamma lgamma copysign""".split())
MATH_FUNCTIONS = _MATH_DOUBLE | {f + "f" for f in _MATH_DOUBLE} | {"abs", "labs"}
"""Functions a kernel may call; everything else is rejected."""

_ARITH = frozenset("+-*/")
_COMPARE = frozenset({"<", "<=", ">", ">=", "==", "!=", "&&", "||"})
_INT_ONLY = frozenset({"%", "&", "|", "^", "<<", ">>"})


def reject_statement(node, in_nest: bool, filename: str | None):
    """KernelError for a statement kind outside the subset (not raised here)."""
    where = "inside the loop nest" if in_nest else "in a kernel"
    if isinstance(node, c_ast.If):
        msg = (f"if statements are not supported {where}: the loop body must be "
               "branch-free; use a conditional expression (c ? x : y) instead")
    elif isinstance(node, (c_ast.While, c_ast.DoWhile)):
        msg = "while and do-while loops are not supported; write the loop as a for loop"
    elif isinstance(node, (c_ast.Goto, c_ast.Label)):
        msg = "goto and labels are not supported"
    elif isinstance(node, (c_ast.Switch, c_ast.Case, c_ast.Default)):
        msg = f"switch statements are not supported {where}"
    elif isinstance(node, (c_ast.Break, c_ast.Continue)):
        msg = "break and continue are not supported: loops must run over their full range"
    elif isinstance(node, c_ast.Return):
        msg = "return statements are not supported"
    elif isinstance(node, c_ast.Typedef):
        msg = "typedef is not supported"
    else:
        msg = f"unsupported statement '{node_text(node)}'"
    return fail(msg, filename, node)


class KernelScope(Protocol):
    """What the statements of a kernel are analysed against: the names in scope and
    the lists the analysis fills (the parser's model builder is one).

    The parser hands itself in, so the analyser needs no import of the parser.
    """

    filename: str | None
    arrays: dict[str, Array]              # declared scalars and arrays
    active: dict[str, Loop]               # the loops enclosing the statement, by index
    index_names: set[str]                 # every loop index of the nest
    accesses: list[Access]                # innermost statements' accesses, in order
    outer_accesses: list[Access]          # accesses of statements outside the innermost loop
    flops: Counter                        # operator -> flops per innermost iteration
    math_calls: Counter                   # function -> calls per innermost iteration

    def declare(self, decl: c_ast.Decl, in_nest: bool) -> Array:
        """Register a declaration and return it."""

    def constant(self, node: c_ast.ID) -> sympy.Symbol:
        """The symbol of an undeclared name (a kernel constant)."""

    def int_expr(self, node, what: str) -> sympy.Expr:
        """An affine integer expression (an index) of the loop indices and constants."""


class BodyAnalyzer:
    """Analyses statements at one nesting level of the kernel.

    ``innermost`` selects where accesses go and whether flops count;
    ``in_nest`` only changes error wording and forbids array declarations.
    """

    def __init__(self, kernel: KernelScope, innermost: bool, in_nest: bool):
        self.k = kernel
        self.filename = kernel.filename
        self.innermost = innermost
        self.in_nest = in_nest
        self.out = kernel.accesses if innermost else kernel.outer_accesses

    # --- statements -----------------------------------------------------------------
    def statement(self, node) -> None:
        if isinstance(node, c_ast.Decl):
            arr = self.k.declare(node, in_nest=self.in_nest)
            if arr.is_scalar and node.init is not None:
                self.expr(node.init)
                self._emit(arr.name, "write", (), node)
        elif isinstance(node, c_ast.Compound):
            for item in node.block_items or []:
                self.statement(item)
        elif isinstance(node, (c_ast.EmptyStatement, c_ast.Pragma)):
            return
        elif isinstance(node, (c_ast.Assignment, c_ast.UnaryOp, c_ast.FuncCall,
                               c_ast.BinaryOp, c_ast.TernaryOp, c_ast.ExprList,
                               c_ast.ArrayRef, c_ast.ID, c_ast.Constant, c_ast.Cast)):
            self.expr(node)
        elif isinstance(node, c_ast.For):
            raise fail("for loops must be nested directly in the loop nest",
                       self.filename, node)
        else:
            raise reject_statement(node, self.in_nest, self.filename)

    # --- expressions ----------------------------------------------------------------
    def expr(self, node) -> str:
        """Analyse ``node`` in value context; return its C type."""
        # one method per supported node class (_ID, _Constant, _BinaryOp ...)
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise fail(f"unsupported expression '{node_text(node)}'", self.filename, node)
        return method(node)

    def _Constant(self, node: c_ast.Constant) -> str:
        return literal_type(node.value, self.filename, node)

    def _ID(self, node: c_ast.ID) -> str:
        name = node.name
        if name in self.k.active:
            return "int"
        if name in self.k.index_names:
            raise fail(f"loop index '{name}' is used outside its loop", self.filename, node)
        arr = self.k.arrays.get(name)
        if arr is None:
            self.k.constant(node)
            return "int"
        if not arr.is_scalar:
            raise fail(f"array '{name}' used without subscript (pointer arithmetic is not "
                       "supported)", self.filename, node)
        self._emit(name, "read", (), node)
        return arr.ctype

    def _ArrayRef(self, node: c_ast.ArrayRef) -> str:
        name, indices = self._subscripts(node)
        self._emit(name, "read", indices, node)
        return self.k.arrays[name].ctype

    def _BinaryOp(self, node: c_ast.BinaryOp) -> str:
        """A chain ``((a + b) + c) + ...`` is walked iteratively: a generated sum of
        thousands of terms must not exhaust the stack (left operand first, as C
        evaluates and as the accesses are recorded)."""
        chain = [node]
        while isinstance(chain[-1].left, c_ast.BinaryOp):
            chain.append(chain[-1].left)
        left = self.expr(chain[-1].left)
        for link in reversed(chain):
            left = self._binary_result(link, left, self.expr(link.right))
        return left

    def _binary_result(self, node: c_ast.BinaryOp, left: str, right: str) -> str:
        """The C type of ``left op right``, counting a flop where C computes one."""
        if node.op in _COMPARE:
            return "int"
        result = arithmetic_type(left, right)
        if node.op in _INT_ONLY:
            if result in FLOATING:
                raise fail(f"operator '{node.op}' needs integer operands", self.filename, node)
            return result
        if node.op not in _ARITH:  # pragma: no cover - pycparser has no other binary ops
            raise fail(f"operator '{node.op}' is not supported", self.filename, node)
        self._flop(node.op, result)
        return result

    def _UnaryOp(self, node: c_ast.UnaryOp) -> str:
        op = node.op
        if op in ("-", "+"):
            return self.expr(node.expr)   # unary minus: not a flop (see module doc)
        if op in ("!", "~"):
            self.expr(node.expr)
            return "int"
        if op in ("++", "--", "p++", "p--"):
            ctype = self._update(node.expr, "+" if "+" in op else "-", None)
            return ctype
        if op in ("*", "&"):
            raise fail(f"pointer arithmetic ('{op}') is not supported", self.filename, node)
        raise fail(f"operator '{op}' is not supported", self.filename, node)

    def _TernaryOp(self, node: c_ast.TernaryOp) -> str:
        self.expr(node.cond)
        return arithmetic_type(self.expr(node.iftrue), self.expr(node.iffalse))

    def _Cast(self, node: c_ast.Cast) -> str:
        target = node.to_type.type
        if isinstance(target, c_ast.PtrDecl):
            raise fail("pointer casts are not supported", self.filename, node)
        if not isinstance(target, c_ast.TypeDecl) \
                or not isinstance(target.type, c_ast.IdentifierType):
            raise fail(f"cast '{node_text(node)}' is not supported", self.filename, node)
        self.expr(node.expr)
        return element_type(target.type.names, self.filename, node)

    def _FuncCall(self, node: c_ast.FuncCall) -> str:
        name = node.name.name if isinstance(node.name, c_ast.ID) else None
        if name not in MATH_FUNCTIONS:
            shown = name or node_text(node.name)
            raise fail(f"call of '{shown}' is not supported; only math functions (sqrt, "
                       "exp, pow, fabs, ...) may be called", self.filename, node)
        for arg in (node.args.exprs if node.args else []):
            self.expr(arg)
        if self.innermost:
            self.k.math_calls[name] += 1
        if name in ("abs", "labs"):
            return "int" if name == "abs" else "long"
        return "float" if name not in _MATH_DOUBLE else "double"

    def _ExprList(self, node: c_ast.ExprList) -> str:
        ctype = "int"
        for item in node.exprs:
            ctype = self.expr(item)
        return ctype

    def _Assignment(self, node: c_ast.Assignment) -> str:
        if node.op == "=":
            self.expr(node.rvalue)
            name, indices, ctype = self._lvalue(node.lvalue)
            self._emit(name, "write", indices, node.lvalue)
            return ctype
        return self._update(node.lvalue, node.op[:-1], node.rvalue)

    # --- helpers --------------------------------------------------------------------
    def _update(self, lvalue, op: str, rvalue) -> str:
        """``lvalue op= rvalue`` (or ++/-- when ``rvalue`` is None): read, compute, write."""
        name, indices, ctype = self._lvalue(lvalue)
        self._emit(name, "read", indices, lvalue)
        rtype = self.expr(rvalue) if rvalue is not None else "int"
        result = arithmetic_type(ctype, rtype)
        if op in _INT_ONLY:
            if result in FLOATING:
                raise fail(f"operator '{op}=' needs integer operands", self.filename, lvalue)
        else:
            self._flop(op, result)
        self._emit(name, "write", indices, lvalue)
        return ctype

    def _lvalue(self, node) -> tuple[str, tuple[sympy.Expr, ...], str]:
        if isinstance(node, c_ast.ArrayRef):
            name, indices = self._subscripts(node)
            return name, indices, self.k.arrays[name].ctype
        if isinstance(node, c_ast.ID):
            name = node.name
            if name in self.k.active or name in self.k.index_names:
                raise fail(f"loop index '{name}' must not be modified in the loop body",
                           self.filename, node)
            arr = self.k.arrays.get(name)
            if arr is None:
                raise fail(f"assignment to undeclared variable '{name}' (declare it, e.g. "
                           f"'double {name};')", self.filename, node)
            if not arr.is_scalar:
                raise fail(f"assignment to array '{name}' without subscript",
                           self.filename, node)
            return name, (), arr.ctype
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            raise fail("pointer arithmetic ('*') is not supported", self.filename, node)
        raise fail(f"cannot assign to '{node_text(node)}'", self.filename, node)

    def _subscripts(self, node: c_ast.ArrayRef) -> tuple[str, tuple[sympy.Expr, ...]]:
        """Array name and per-dimension index expressions of ``a[..][..]``."""
        subs = []
        base = node
        while isinstance(base, c_ast.ArrayRef):
            subs.append(base.subscript)
            base = base.name
        subs.reverse()
        if not isinstance(base, c_ast.ID):
            raise fail(f"subscript of '{node_text(base)}' is not supported (pointer "
                       "arithmetic)", self.filename, node)
        name = base.name
        arr = self.k.arrays.get(name)
        if arr is None:
            what = "a loop index" if name in self.k.index_names else "not declared"
            raise fail(f"'{name}' is subscripted but is {what}; declare it as an array "
                       f"(e.g. 'double {name}[N];')", self.filename, node)
        if arr.is_scalar:
            raise fail(f"'{name}' is a scalar, not an array, and cannot be subscripted",
                       self.filename, node)
        if len(subs) != len(arr.dimensions):
            raise fail(f"array '{name}' has {len(arr.dimensions)} dimension(s) but is "
                       f"accessed with {len(subs)} index(es)", self.filename, node)
        return name, tuple(sympy.expand(self.k.int_expr(s, "index")) for s in subs)

    def _flop(self, op: str, result_type: str) -> None:
        if self.innermost and result_type in FLOATING:
            self.k.flops[op] += 1

    def _emit(self, name: str, kind: str, indices: tuple[sympy.Expr, ...], node) -> None:
        loc = location(self.filename, node)
        if indices:
            arr = self.k.arrays[name]
            linear = linear_index(indices, arr.dimensions)
            offset = constant_offset(linear, [lp.symbol for lp in self.k.active.values()])
        else:
            linear = offset = sympy.Integer(0)
        self.out.append(Access(name, kind, indices, linear, offset, loc.line, loc.col))
