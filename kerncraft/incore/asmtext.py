"""Quote-aware scanning of assembly text, shared by the x86 and AArch64 parsers.

Directives may carry strings (``.string "a#b, c"``), so comment characters,
statement separators and operand commas only count outside ``"..."``
(backslash escapes honoured) and, in GNU as x86 syntax, outside character
constants (``'c``).
"""
from __future__ import annotations

from typing import Iterator

__all__ = ["unquoted", "find_unquoted", "split_top_level"]


def unquoted(text: str, char_constants: bool = False) -> Iterator[tuple[int, str]]:
    """(index, character) of every character of ``text`` outside strings; the quotes
    themselves, and with ``char_constants`` a ``'`` with the character after it, are
    not yielded."""
    in_str = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if in_str:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif char_constants and ch == "'" and i + 1 < n:
            i += 1
        else:
            yield i, ch
        i += 1


def find_unquoted(text: str, chars: str, char_constants: bool = True) -> int:
    """Index of the first character of ``chars`` outside strings, or -1."""
    if '"' not in text and "'" not in text:
        positions = [p for p in (text.find(c) for c in chars) if p >= 0]
        return min(positions) if positions else -1
    return next((i for i, ch in unquoted(text, char_constants) if ch in chars), -1)


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split at ``sep`` outside strings, parentheses, brackets and braces; strip the parts."""
    if '"' not in text and not any(c in text for c in "({[)}]"):
        return [part.strip() for part in text.split(sep)]
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in (unquoted(text) if '"' in text else enumerate(text)):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts
