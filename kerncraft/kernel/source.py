"""Text-level preparation of kernel source for pycparser.

pycparser only reads *preprocessed* C: it knows neither comments nor
directives. Running the real C preprocessor would need a compiler and would
expand macros the analysis should see, so this module does the little that
kernels need itself:

* comments are replaced by spaces (newlines kept), so every token keeps its
  line *and* column and error messages point at the user's text;
* ``#pragma`` lines are collected (they are reported with -v and otherwise
  ignored) and blanked;
* every other directive (``#define``, ``#include``, ...) is rejected, because
  silently ignoring it would analyse a different program than the user wrote.
"""
from __future__ import annotations

from kerncraft.errors import KernelError, SourceLocation

WRAPPER_NAME = "__kerncraft_kernel__"
"""Name of the function :func:`wrap_for_parser` puts the kernel into."""
LINE_FILE = "kernel.c"
"""File name in the ``# 1`` line marker; pass it as pycparser's ``filename``."""
_LINE_FILE = LINE_FILE   # older spelling, kept for callers


def normalize_newlines(source: str) -> str:
    return source.replace("\r\n", "\n").replace("\r", "\n")


def blank_comments(source: str, filename: str | None) -> str:
    """Return ``source`` with comments replaced by spaces (newlines preserved).

    String and character literals are skipped so that ``"//"`` inside them is
    not taken for a comment (kernels have no strings, but the error message for
    them should come from the parser, not from a mangled line).
    """
    out: list[str] = []
    i, n = 0, len(source)
    line, col = 1, 1
    while i < n:
        ch = source[i]
        nxt = source[i + 1] if i + 1 < n else ""
        if ch == "/" and nxt == "/":
            end = source.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            col += end - i
            i = end
            continue
        if ch == "/" and nxt == "*":
            end = source.find("*/", i + 2)
            if end < 0:
                raise KernelError("unterminated /* comment", SourceLocation(filename, line, col))
            chunk = source[i:end + 2]
            out.append("".join("\n" if c == "\n" else " " for c in chunk))
            newlines = chunk.count("\n")
            if newlines:
                line += newlines
                col = len(chunk) - chunk.rfind("\n")
            else:
                col += len(chunk)
            i = end + 2
            continue
        if ch in "\"'":
            j = i + 1
            while j < n and source[j] != ch and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(source[i:j])
            col += j - i
            i = j
            continue
        out.append(ch)
        if ch == "\n":
            line, col = line + 1, 1
        else:
            col += 1
        i += 1
    return "".join(out)


def extract_pragmas(text: str, filename: str | None) -> tuple[str, tuple[str, ...]]:
    """Blank ``#pragma`` lines (collecting them); reject other directives.

    ``text`` must already be comment-free. Lines are blanked, not removed, so
    line numbers stay those of the user's file.
    """
    lines = text.split("\n")
    pragmas: list[str] = []
    i = 0
    while i < len(lines):
        stripped = lines[i].lstrip()
        if not stripped.startswith("#"):
            i += 1
            continue
        col = len(lines[i]) - len(stripped) + 1
        last = i
        while lines[last].rstrip().endswith("\\") and last + 1 < len(lines):
            last += 1
        words = stripped[1:].split(None, 1)
        word = words[0] if words else ""
        if word != "pragma":
            shown = f"#{word}" if word else "#"
            raise KernelError(
                f"preprocessor directive '{shown}' is not supported: kernels are not "
                "preprocessed (give constants with -D; only #pragma lines are allowed "
                "and are ignored)", SourceLocation(filename, i + 1, col))
        joined = " ".join(ln.strip().rstrip("\\").strip() for ln in lines[i:last + 1])
        pragmas.append(" ".join(joined.split()))
        for k in range(i, last + 1):
            lines[k] = ""
        i = last + 1
    return "\n".join(lines), tuple(pragmas)


def wrap_for_parser(text: str) -> str:
    """Put the kernel into a function body so statements are legal C.

    The ``# 1`` line marker makes pycparser number the kernel's first line 1,
    so coordinates need no correction.
    """
    return f'void {WRAPPER_NAME}(void) {{\n# 1 "{LINE_FILE}"\n{text}\n}}\n'


def check_braces(text: str, filename: str | None) -> None:
    """Reject an unmatched ``}``: it would close the wrapper function early.

    ``text`` is comment-free; braces inside string or character literals are
    skipped (such literals are rejected later anyway).
    """
    depth = 0
    for line_no, line in enumerate(text.split("\n"), start=1):
        quote = None
        for col, ch in enumerate(line, start=1):
            if quote:
                quote = None if ch == quote else quote
            elif ch in "\"'":
                quote = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth < 0:
                    raise KernelError("C syntax error: unmatched '}'",
                                      SourceLocation(filename, line_no, col))


def prepare(source: str, filename: str | None) -> tuple[str, str, tuple[str, ...]]:
    """Return (comment-free text, wrapped text for pycparser, pragmas)."""
    text = blank_comments(normalize_newlines(source), filename)
    text, pragmas = extract_pragmas(text, filename)
    return text, wrap_for_parser(text), pragmas
