"""Running an external in-core analyzer: the selected block written between the
tool's comment markers (:func:`marked_block`), the tool found on PATH
(:func:`find_versioned`) and run in a fresh temporary directory with an argument
list, never a shell string (:func:`run_tool`). Shared by the backends of
:mod:`kerncraft.incore.backends`.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

from kerncraft.errors import KerncraftError, ToolError

if TYPE_CHECKING:
    from kerncraft.incore.protocols import SelectedBlock

__all__ = ["marked_block", "find_versioned", "tool_identity", "run_tool", "TOOL_TIMEOUT"]

#: Seconds before a hanging tool is given up on.
TOOL_TIMEOUT = 300


# ------------------------------------------------------------------ block extraction
_DIRECTIVE = re.compile(r"^\s*\.[A-Za-z_]\w*(\s|$)")
_LABEL = re.compile(r"([.\w$@]+):\s*(?:#.*)?")


def marked_block(asm_text: str, selection: SelectedBlock, begin: str, end: str,
                 comment: str = "#") -> str:
    """The selected loop block as a small assembly file between comment markers.

    Lines from the first to the last instruction of the block are kept (labels
    inside the loop too), directives and comment-only lines are dropped; the
    block's own label is put right after the begin marker. ``comment`` starts the
    marker lines: ``#`` for x86, ``//`` where a tool reads AArch64 comments only so.
    """
    lines = asm_text.splitlines()
    numbers = [ins.line_number for ins in selection.instructions]
    if not numbers:
        raise KerncraftError("the selected loop block contains no instructions")
    first, last = min(numbers), max(numbers)
    body = []
    for text in lines[first - 1:last]:
        stripped = text.strip()
        if not stripped or stripped.startswith(("#", "//", ";")) or _DIRECTIVE.match(text):
            continue
        label = _LABEL.fullmatch(stripped)
        if label:
            body.append(f"{label.group(1)}:")
        else:
            body.append("\t" + stripped)
    head = []
    block_label = selection.block.label
    if block_label and f"{block_label}:" not in body:
        head.append(f"{block_label}:")
    return "\n".join([f"\t{comment} {begin}", *head, *body, f"\t{comment} {end}", ""])


# ------------------------------------------------------------------ running a tool
def find_versioned(base: str, env_var: str | None = None) -> str | None:
    """Path of ``base`` (e.g. 'llvm-mca') on PATH, else of the highest ``base-N``.

    ``env_var`` (e.g. ``KERNCRAFT_LLVM_MCA``) may name the executable explicitly.
    """
    if env_var and os.environ.get(env_var):
        return shutil.which(os.environ[env_var])
    found = shutil.which(base)
    if found:
        return found
    pattern = re.compile(re.escape(base) + r"-(\d+)(?:\.(\d+))?$")
    best: tuple[tuple[int, int], str] | None = None
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        try:
            names = os.listdir(directory or ".")
        except OSError:
            continue
        for name in names:
            match = pattern.match(name)
            if not match:
                continue
            path = os.path.join(directory or ".", name)
            if not (os.path.isfile(path) and os.access(path, os.X_OK)):
                continue
            version = (int(match.group(1)), int(match.group(2) or 0))
            if best is None or version > best[0]:
                best = (version, path)
    return best[1] if best else None


def tool_identity(path: str) -> str:
    """What identifies a tool build cheaply: resolved path, size and mtime."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
        return f"{real}:{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        return real


def run_tool(cmd: Sequence[str], name: str, files: Mapping[str, str],
             timeout: float | None = None) -> str:
    """Run ``cmd`` (an argument list; ``{dir}`` in an argument becomes the
    temporary directory) in a fresh temporary directory holding ``files``;
    return its standard output. Raises :class:`ToolError` with the tool's first
    error lines if it fails."""
    with tempfile.TemporaryDirectory(prefix=f"kerncraft-{name}-") as tmp:
        for fname, text in files.items():
            Path(tmp, fname).write_text(text, encoding="utf-8")
        argv = [a.replace("{dir}", tmp) for a in cmd]
        try:
            proc = subprocess.run(argv, cwd=tmp, capture_output=True, text=True,
                                  timeout=timeout or TOOL_TIMEOUT, check=False,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise ToolError(f"{name} did not finish within {timeout or TOOL_TIMEOUT} s") from None
        except OSError as err:
            raise ToolError(f"could not run {name}: {err}") from None
        if proc.returncode != 0:
            message = _first_lines(proc.stderr or proc.stdout, tmp)
            raise ToolError(f"{name} failed (exit {proc.returncode}): {message}")
        return proc.stdout


def _first_lines(output: str, tmp: str, limit: int = 3) -> str:
    lines = [ln.replace(tmp + os.sep, "").strip() for ln in (output or "").splitlines()]
    lines = [ln for ln in lines if ln]
    errors = [ln for ln in lines if re.search(r"error|exception|unknown|invalid", ln, re.I)]
    chosen = (errors or lines)[:limit]
    return "; ".join(chosen) if chosen else "no error message"
