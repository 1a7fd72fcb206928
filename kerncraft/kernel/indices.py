"""Integer expressions of the kernel (sizes, loop bounds, indices) as sympy.

Array sizes, loop bounds and subscripts are all integer expressions in the
kernel's constants and loop indices. They are converted to sympy so that later
stages can offset, substitute and compare them exactly. Subscripts and bounds
must be *affine* in the loop indices: that is what makes the reuse distance of
two accesses a constant (the premise of layer conditions and of the cache
simulator's address generation). Coefficients may contain constants, so the
1D-flattened ``a[j*N+i]`` is affine, while ``a[i*j]`` or ``a[i*i]`` is not.
"""
from __future__ import annotations

from typing import Callable, Iterable

import sympy
from pycparser import c_ast

from kerncraft.kernel.cnodes import fail, int_literal_value, literal_type, node_text

Resolver = Callable[[c_ast.ID, str], sympy.Expr]
"""Maps an identifier node (and the context word) to its symbol; raises if illegal."""


class IntExprBuilder:
    """Converts a pycparser integer expression into a sympy expression.

    ``resolve`` decides what an identifier means (loop index, constant, or an
    error such as a data scalar used in an index); ``loop_symbols`` lets
    ``/`` and ``%`` be accepted on loop-independent operands only (``N/2`` is
    fine, ``i/2`` is not affine).
    """

    def __init__(self, filename: str | None, resolve: Resolver,
                 loop_symbols: Iterable[sympy.Symbol]):
        self.filename = filename
        self.resolve = resolve
        self.loop_symbols = frozenset(loop_symbols)

    def build(self, node, what: str) -> sympy.Expr:
        """Convert ``node``; ``what`` ('index', 'loop bound', ...) words the errors."""
        # one method per supported node class (_ID, _Constant, _BinaryOp ...)
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise fail(f"unsupported expression '{node_text(node)}' in {what}",
                       self.filename, node)
        return method(node, what)

    # --- node kinds ----------------------------------------------------------
    def _Constant(self, node: c_ast.Constant, what: str) -> sympy.Expr:
        ctype = literal_type(node.value, self.filename, node)
        if ctype not in ("int", "long"):
            raise fail(f"floating-point literal {node.value} in {what}; "
                       f"{what}s must be integer expressions", self.filename, node)
        return sympy.Integer(int_literal_value(node.value, self.filename, node))

    def _ID(self, node: c_ast.ID, what: str) -> sympy.Expr:
        return self.resolve(node, what)

    def _ArrayRef(self, node: c_ast.ArrayRef, what: str) -> sympy.Expr:
        if what == "index":
            raise fail(f"indirect index '{node_text(node)}' is not supported: indices "
                       "must be affine in loop indices and constants, not read from "
                       "arrays", self.filename, node)
        raise fail(f"array element '{node_text(node)}' in {what}; only constants, "
                   "loop indices and integer literals are allowed", self.filename, node)

    def _UnaryOp(self, node: c_ast.UnaryOp, what: str) -> sympy.Expr:
        if node.op == "-":
            return -self.build(node.expr, what)
        if node.op == "+":
            return self.build(node.expr, what)
        if node.op in ("*", "&"):
            raise fail(f"pointer arithmetic ('{node.op}') is not supported",
                       self.filename, node)
        raise fail(f"operator '{node.op}' is not supported in {what} "
                   f"'{node_text(node)}'", self.filename, node)

    def _Cast(self, node: c_ast.Cast, what: str) -> sympy.Expr:
        target = node.to_type.type
        spec = target.type if isinstance(target, c_ast.TypeDecl) else None
        if not isinstance(spec, c_ast.IdentifierType) \
                or not set(spec.names) <= {"int", "long", "signed", "unsigned"}:
            raise fail(f"cast to a non-integer type in {what}", self.filename, node)
        return self.build(node.expr, what)

    def _BinaryOp(self, node: c_ast.BinaryOp, what: str) -> sympy.Expr:
        left = self.build(node.left, what)
        right = self.build(node.right, what)
        if node.op == "+":
            return left + right
        if node.op == "-":
            return left - right
        if node.op == "*":
            return left * right
        if node.op in ("/", "%"):
            if left.has(*self.loop_symbols) or right.has(*self.loop_symbols):
                raise fail(f"{what} '{node_text(node)}' is not affine: '{node.op}' on a "
                           "loop index is not supported", self.filename, node)
            if right == 0:
                raise fail(f"division by zero in {what}", self.filename, node)
            # C truncates; for the positive quantities used as sizes this is floor.
            return sympy.floor(left / right) if node.op == "/" else sympy.Mod(left, right)
        raise fail(f"operator '{node.op}' is not supported in {what} '{node_text(node)}'",
                   self.filename, node)


def affine_violation(expr: sympy.Expr, loop_symbols: Iterable[sympy.Symbol]) -> str | None:
    """Why ``expr`` is not affine in ``loop_symbols`` (None if it is)."""
    syms = frozenset(loop_symbols)
    if not expr.has(*syms):
        return None
    for term in sympy.Add.make_args(sympy.expand(expr)):
        degree = 0
        for factor in sympy.Mul.make_args(term):
            base, exp = factor.as_base_exp()
            if base in syms:
                if not (exp.is_Integer and exp > 0):
                    return f"{base} appears with exponent {exp}"
                degree += int(exp)
            elif factor.has(*syms):
                return f"loop index inside '{factor}'"
        if degree > 1:
            return "it multiplies loop indices"
    return None


def require_affine(expr: sympy.Expr, loop_symbols: Iterable[sympy.Symbol], node,
                   what: str, filename: str | None) -> None:
    """Raise a KernelError at ``node`` unless ``expr`` is affine in the loop indices."""
    reason = affine_violation(expr, loop_symbols)
    if reason is not None:
        raise fail(f"{what} '{node_text(node)}' is not affine in the loop indices "
                   f"({reason})", filename, node)


def linear_index(indices: tuple[sympy.Expr, ...],
                 dimensions: tuple[sympy.Expr, ...]) -> sympy.Expr:
    """Row-major flattened element index (Horner form, then expanded)."""
    linear: sympy.Expr = sympy.Integer(0)
    for idx, dim in zip(indices, dimensions):
        linear = linear * dim + idx
    return sympy.expand(linear)


def constant_offset(linear: sympy.Expr, loop_symbols: Iterable[sympy.Symbol]) -> sympy.Expr:
    """Part of a linear index that does not move with the loops (see model doc)."""
    return sympy.expand(linear.xreplace({s: sympy.Integer(0) for s in loop_symbols}))
