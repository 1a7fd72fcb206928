"""Project exceptions.

Every error a user can cause (bad C construct, bad machine file, bad -D value,
unknown instruction form, missing compiler) is a :class:`KerncraftError`. The
CLI prints ``str(error)`` on one line and exits with ``error.exit_code``; it
never shows a traceback for these. What does not fit on that line (the table of
candidate loop blocks) is in ``error.notes`` and printed after it
(:func:`error_lines`).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLocation:
    """Where in a user-supplied file an error was found (1-based line/col)."""

    file: str | None = None
    line: int | None = None
    col: int | None = None

    def __str__(self) -> str:
        parts = [self.file or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.col is not None:
                parts.append(str(self.col))
        return ":".join(parts)


class KerncraftError(Exception):
    """Base class of all user-facing errors.

    ``location`` (if given) is prefixed to the message as ``file:line:col: ``;
    ``notes`` are further lines (a table) shown after the one-line error.
    """

    exit_code = 2
    notes: tuple[str, ...] = ()

    def __init__(self, message: str, location: SourceLocation | None = None):
        self.message = message
        self.location = location
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.location is not None:
            return f"{self.location}: {self.message}"
        return self.message


def error_lines(prog: str, error: KerncraftError) -> str:
    r"""What a command prints for ``error``: ``prog: error: message`` on one line,
    then each note as ``prog: note: first line`` with its further lines indented.

    >>> e = KerncraftError("no block"); e.notes = ("candidates:\n#0 .L2",)
    >>> print(error_lines("kerncraft", e))
    kerncraft: error: no block
    kerncraft: note: candidates:
      #0 .L2
    """
    lines = [f"{prog}: error: {error}"]
    for note in error.notes:
        first, *rest = note.split("\n")
        lines += [f"{prog}: note: {first}", *(f"  {line}" for line in rest)]
    return "\n".join(lines)


class KernelError(KerncraftError):
    """The kernel source uses a construct outside the supported C subset."""


class MachineFileError(KerncraftError):
    """A machine file is missing a field or has a malformed one.

    ``yaml_path`` names the field, e.g. ``memory hierarchy[1].cache per group.ways``.
    """

    def __init__(self, message: str, location: SourceLocation | None = None,
                 yaml_path: str | None = None):
        self.yaml_path = yaml_path
        if yaml_path:
            message = f"{yaml_path}: {message}"
        super().__init__(message, location)


class UnitError(KerncraftError):
    """A quantity string such as '2.5 GHz' could not be parsed."""


class DefineError(KerncraftError):
    """A -D constant binding is malformed or missing."""


class AssemblyError(KerncraftError):
    """Assembly could not be parsed or the loop block could not be found."""


class UnknownInstructionError(KerncraftError):
    """Instruction forms are missing from the port-model database."""


class ToolError(KerncraftError):
    """An external tool (compiler, llvm-mca, likwid) is missing or failed."""


class NotImplementedModelError(KerncraftError):
    """A performance model that a later development stage will provide."""

    exit_code = 3
