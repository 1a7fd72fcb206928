"""Integer expressions written as text in a kernel description (``M-1``, ``i+1``, ``2*N``).

A kernel description (:mod:`kerncraft.kernel.description`) writes array sizes, loop
bounds and indices as short expressions in the kernel's constants and loop indices.
They are read here with Python's own expression parser (``ast``, never ``eval`` or
sympy's string parser, which evaluates the text) and turned into the same sympy
expressions the C front end builds: constants are positive integer symbols, loop
indices integer symbols, ``/`` and ``%`` act on loop-independent operands only and
divide as C does for positive sizes (``N/2`` is ``floor(N/2)``). Whether an index is
affine in the loop indices is checked by the caller (``indices.affine_violation``).
"""
from __future__ import annotations

import ast
from typing import Callable

import sympy

#: Longest expression text accepted (descriptions hold short index expressions; the
#: limit keeps Python's parser far from its recursion limit).
MAX_LENGTH = 2000

NameResolver = Callable[[str], sympy.Expr]
"""Maps a name of the expression to its symbol; raises ``ExpressionError`` if illegal."""


class ExpressionError(ValueError):
    """An expression text outside the supported integer subset (message: one line)."""


def expression_text(text: str) -> str:
    """``text`` for a one-line message: whitespace collapsed, at most 60 characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= 60 else flat[:57] + "..."


def integer_expression(text: str | int, resolve: NameResolver,
                       loop_symbols: frozenset[sympy.Symbol] = frozenset()) -> sympy.Expr:
    """The sympy form of ``text``, an integer or a text such as ``'M-1'`` or ``'j+1'``.

    ``resolve`` gives each name its symbol; ``loop_symbols`` are the names that ``/``,
    ``%`` and ``**`` must not touch (they would make an index non-affine).

    >>> M, i = sympy.Symbol("M", integer=True, positive=True), sympy.Symbol("i", integer=True)
    >>> integer_expression("2*M - (i+1)", {"M": M, "i": i}.__getitem__, frozenset({i}))
    2*M - i - 1
    >>> integer_expression("M/2", {"M": M}.__getitem__)
    floor(M/2)
    """
    if isinstance(text, int):
        return sympy.Integer(text)
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"expression longer than {MAX_LENGTH} characters")
    shown = expression_text(text)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise ExpressionError(f"'{shown}' is not an integer expression") from None
    except (RecursionError, MemoryError):
        raise ExpressionError(f"expression '{shown}' is nested too deeply") from None
    try:
        return _Converter(shown, resolve, loop_symbols).convert(tree.body)
    except RecursionError:
        raise ExpressionError(f"expression '{shown}' is nested too deeply") from None


class _Converter:
    """Walks one expression's syntax tree; every unsupported node is an error."""

    def __init__(self, text: str, resolve: NameResolver, loop_symbols: frozenset[sympy.Symbol]):
        self.text, self.resolve, self.loop_symbols = text, resolve, loop_symbols

    def convert(self, node: ast.AST) -> sympy.Expr:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, int):
                raise ExpressionError(f"{node.value!r} in '{self.text}' is not an integer")
            return sympy.Integer(node.value)
        if isinstance(node, ast.Name):
            return self.resolve(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = self.convert(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp):
            return self._binary(node)
        raise ExpressionError(f"'{self.text}' is not an integer expression: only integers, "
                              "names and + - * / % ( ) are allowed")

    def _binary(self, node: ast.BinOp) -> sympy.Expr:
        left, right = self.convert(node.left), self.convert(node.right)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if not isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)):
            raise ExpressionError(f"operator in '{self.text}' is not supported "
                                  "(use + - * / %)")
        if left.has(*self.loop_symbols) or right.has(*self.loop_symbols):
            raise ExpressionError(f"'{self.text}' is not affine: / % and ** are not "
                                  "supported on a loop index")
        if isinstance(node.op, ast.Pow):
            if not (right.is_Integer and 0 <= right <= 8):
                raise ExpressionError(f"exponent in '{self.text}' must be an integer 0..8")
            return left ** right
        if right == 0:
            raise ExpressionError(f"division by zero in '{self.text}'")
        # C truncates; for the positive sizes written here that is floor (as the C parser)
        return sympy.Mod(left, right) if isinstance(node.op, ast.Mod) else sympy.floor(left / right)
