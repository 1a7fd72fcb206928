"""What an external in-core analyzer reports on one loop block (:class:`BackendAnalysis`),
the same for every backend of :mod:`kerncraft.incore.backends`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

__all__ = ["BackendAnalysis"]


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
