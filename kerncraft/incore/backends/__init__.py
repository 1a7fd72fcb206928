"""External in-core analyzers as alternative backends (``-i LLVM-MCA``, ``-i OSACA``).

Our own block selection (:func:`kerncraft.compilation.asm_block.select_block`) picks the
loop; the backend writes that block, between the tool's comment markers
(``# LLVM-MCA-BEGIN`` / ``# LLVM-MCA-END``, ``# OSACA-BEGIN`` / ``# OSACA-END``),
into a fresh temporary directory, runs the tool there with an argument list
(never a shell string) and parses its text output into a
:class:`BackendAnalysis`: cycles per *assembly iteration* on every port the
tool models, its throughput, and (OSACA) critical path and loop-carried
dependency. The ECM models then use the machine file's non-overlapping ports
for that tool (``non-overlapping model: ports: LLVM-MCA: [SKXPort2, SKXPort3]``)
exactly as for our analyzer, so ``ECMCPU`` has the same shape with every backend.

The tools are optional and detected at run time; their absence is one clear
error line. Their names and per-tool architecture arguments come from the
machine file's ``in-core model`` entry for the tool.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from kerncraft.errors import KerncraftError, ToolError

__all__ = ["BackendAnalysis", "BACKENDS", "canonical_backend", "get_backend", "marked_block",
           "run_tool", "find_versioned", "tool_identity", "TOOL_TIMEOUT"]

#: Seconds before a hanging tool is given up on.
TOOL_TIMEOUT = 300

#: Canonical backend names (the machine-file keys) by lower-case spelling.
BACKENDS = {"kerncraft": "kerncraft", "osaca": "OSACA", "llvm-mca": "LLVM-MCA",
            "llvm_mca": "LLVM-MCA", "llvmmca": "LLVM-MCA", "mca": "LLVM-MCA"}


def canonical_backend(name: str | None) -> str:
    """'kerncraft', 'OSACA' or 'LLVM-MCA' for any accepted spelling."""
    if name is None:
        return "kerncraft"
    try:
        return BACKENDS[str(name).strip().lower()]
    except KeyError:
        raise KerncraftError(f"unknown in-core model {name!r} (choose from kerncraft, OSACA, "
                             "LLVM-MCA)") from None


def get_backend(name: str):
    """The module implementing a backend ('OSACA' or 'LLVM-MCA')."""
    name = canonical_backend(name)
    if name == "LLVM-MCA":
        from kerncraft.incore.backends import llvm_mca
        return llvm_mca
    if name == "OSACA":
        from kerncraft.incore.backends import osaca
        return osaca
    raise KerncraftError(f"{name} is not an external backend")


@dataclass(frozen=True)
class BackendAnalysis:
    """An external tool's analysis of one loop block (cycles per assembly iteration).

    ``critical_path`` / ``lcd`` / ``frontend`` are None where the tool does not
    compute the quantity. ``simulated`` is llvm-mca's simulated cycles per
    iteration in the steady state (None for OSACA).
    """

    tool: str                                   # 'LLVM-MCA' | 'OSACA'
    arch: str                                   # the tool's architecture argument
    port_totals: Mapping[str, float]            # port -> cycles per assembly iteration
    throughput: float
    critical_path: float | None = None
    lcd: float | None = None
    frontend: float | None = None
    simulated: float | None = None
    lcd_chains: tuple[tuple[float, str], ...] = ()   # (cycles, description)
    unknown_forms: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    output: str = field(default="", repr=False)  # the tool's raw report
    command: tuple[str, ...] = ()

    @property
    def ports(self) -> tuple[str, ...]:
        return tuple(self.port_totals)

    @property
    def prediction(self) -> float:
        return max(v for v in (self.throughput, self.lcd, self.frontend) if v is not None)

    def to_doc(self) -> dict:
        """JSON-able form (for the result cache)."""
        return {"tool": self.tool, "arch": self.arch,
                "port_totals": [[p, c] for p, c in self.port_totals.items()],
                "throughput": self.throughput, "critical_path": self.critical_path,
                "lcd": self.lcd, "frontend": self.frontend, "simulated": self.simulated,
                "lcd_chains": [list(c) for c in self.lcd_chains],
                "unknown_forms": list(self.unknown_forms), "notes": list(self.notes),
                "output": self.output, "command": list(self.command)}

    @classmethod
    def from_doc(cls, doc: Mapping) -> "BackendAnalysis":
        return cls(doc["tool"], doc["arch"], {p: c for p, c in doc["port_totals"]},
                   doc["throughput"], doc.get("critical_path"), doc.get("lcd"),
                   doc.get("frontend"), doc.get("simulated"),
                   tuple((float(c), str(d)) for c, d in doc.get("lcd_chains", ())),
                   tuple(doc.get("unknown_forms", ())), tuple(doc.get("notes", ())),
                   doc.get("output", ""), tuple(doc.get("command", ())))


# ------------------------------------------------------------------ block extraction
_DIRECTIVE = re.compile(r"^\s*\.[A-Za-z_]\w*(\s|$)")
_LABEL = re.compile(r"([.\w$@]+):\s*(?:#.*)?")


def marked_block(asm_text: str, selection, begin: str, end: str) -> str:
    """The selected loop block as a small assembly file between comment markers.

    Lines from the first to the last instruction of the block are kept (labels
    inside the loop too), directives and comment-only lines are dropped; the
    block's own label is put right after the begin marker.
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
    block_label = getattr(getattr(selection, "block", None), "label", None)
    if block_label and f"{block_label}:" not in body:
        head.append(f"{block_label}:")
    return "\n".join([f"\t# {begin}", *head, *body, f"\t# {end}", ""])


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
