"""Small helpers around pycparser AST nodes shared by the front-end modules.

They hide the few differences between pycparser 2.2x and 3.x that matter here
(coordinates, literal type strings) and turn nodes into locations and text.
"""
from __future__ import annotations

from kerncraft.errors import KernelError, SourceLocation

# Element types of the supported subset, by the list of type-specifier words
# pycparser reports (order as written in the source is normalised by sorting).
_TYPE_WORDS: dict[tuple[str, ...], str] = {
    ("double",): "double",
    ("float",): "float",
    ("int",): "int",
    ("int", "signed"): "int",
    ("signed",): "int",
    ("long",): "long",
    ("int", "long"): "long",
    ("long", "long"): "long",
    ("int", "long", "long"): "long",
    ("long", "signed"): "long",
    ("int", "long", "signed"): "long",
}

_FLOAT_RANK = {"int": 0, "long": 1, "float": 2, "double": 3}

FLOATING = frozenset({"float", "double"})


def location(filename: str | None, node) -> SourceLocation:
    """Location of ``node`` in the user's file (line/col may be unknown)."""
    # open: pycparser's node and coordinate types differ between 2.x and 3.x
    coord = getattr(node, "coord", None)
    if coord is None:
        return SourceLocation(filename)
    return SourceLocation(filename, getattr(coord, "line", None) or None,
                          getattr(coord, "column", None) or None)


def fail(message: str, filename: str | None, node) -> KernelError:
    """Build (not raise) a KernelError located at ``node``."""
    return KernelError(message, location(filename, node))


def node_text(node) -> str:
    """C text of an expression node, for error messages."""
    from pycparser import c_generator

    try:
        return c_generator.CGenerator().visit(node)
    except Exception:  # pragma: no cover - generator gaps only affect messages
        return type(node).__name__


def element_type(names: list[str], filename: str | None, node) -> str:
    """Map pycparser's type-specifier words to one of our element types."""
    key = tuple(sorted(names))
    ctype = _TYPE_WORDS.get(key)
    if ctype is None:
        raise fail(f"type '{' '.join(names)}' is not supported "
                   "(use double, float, int or long)", filename, node)
    return ctype


def arithmetic_type(left: str, right: str) -> str:
    """C's usual arithmetic conversions restricted to our four types."""
    return left if _FLOAT_RANK[left] >= _FLOAT_RANK[right] else right


def literal_type(value: str, filename: str | None, node) -> str:
    """Type of a numeric literal from its spelling (pycparser versions differ)."""
    text = value.lower()
    if text.startswith(("'", '"')) or text.startswith(("l'", 'l"', "u'", 'u"')):
        raise fail(f"character and string literals are not supported ({value})",
                   filename, node)
    is_hex = text.startswith("0x")
    if (is_hex and "p" in text) or (not is_hex and ("." in text or "e" in text)):
        if text.endswith("f"):
            return "float"
        if text.endswith("l"):
            raise fail("long double literals are not supported", filename, node)
        return "double"
    return "long" if "l" in text else "int"


def int_literal_value(value: str, filename: str | None, node) -> int:
    """Value of an integer literal (decimal, hex, octal, binary; any suffix)."""
    text = value.lower().rstrip("ul")
    try:
        if text.startswith(("0x", "0b")):
            return int(text, 0)
        if len(text) > 1 and text.startswith("0"):
            return int(text, 8)
        return int(text, 10)
    except ValueError:
        raise fail(f"'{value}' is not an integer literal", filename, node) from None
