"""Quote-aware scanning of assembly text, shared by the x86 and AArch64 parsers.

Directives may carry strings (``.string "a#b, c"``), so comment characters,
statement separators and operand commas only count outside ``"..."``
(backslash escapes honoured) and, in GNU as x86 syntax, outside character
constants (``'c``).
"""
from __future__ import annotations

from typing import Callable, Iterator

__all__ = ["BlockComments", "unquoted", "find_unquoted", "split_top_level"]


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


class BlockComments:
    """Removes ``/* ... */`` comments, which may span lines (clang emits them), from
    assembly lines in order. ``line_comment(text)`` is the index where the ISA's line
    comment starts (``#`` on x86, ``//`` on AArch64) or -1: a ``/*`` after it is
    comment text, not the start of a block."""

    def __init__(self, line_comment: Callable[[str], int]) -> None:
        self.open = False
        self._line_comment = line_comment

    def strip(self, line: str) -> tuple[str, list[str]]:
        """The line without block comments, and the comments' texts."""
        comments: list[str] = []
        out: list[str] = []
        rest = line
        while rest:
            if self.open:
                end = rest.find("*/")
                if end < 0:
                    comments.append(rest.strip())
                    return "".join(out), comments
                comments.append(rest[:end].strip())
                rest, self.open = rest[end + 2:], False
            start = _block_start(rest)
            line_comment = self._line_comment(rest) if start >= 0 else -1
            if start < 0 or 0 <= line_comment < start:
                out.append(rest)
                break
            out.append(rest[:start] + " ")
            rest, self.open = rest[start + 2:], True
        return "".join(out), comments


def _block_start(text: str) -> int:
    """Index of the first ``/*`` outside strings, or -1."""
    if "/*" not in text:
        return -1
    return next((i for i, ch in unquoted(text) if ch == "/" and text.startswith("/*", i)), -1)
