"""Which ports and which database an in-core prediction uses, from the machine file.

The machine file names its in-core model per tool (``in-core model``) and the ports
whose cycles do not overlap with data transfers (``non-overlapping model``); these
functions turn that into our database name, the external tools' architecture names and
the split of port cycles into T_nOL and the rest (:mod:`kerncraft.models.incore_prediction`).
"""
from __future__ import annotations

from typing import Mapping

from kerncraft.errors import KerncraftError

# OSACA's architecture codes that map onto one of our port-model databases.
# (Only the same core: ICX is Sunny Cove and has its own database, never SPR's Golden Cove.)
OSACA_TO_DATABASE = {"SKX": "SKX", "CSX": "CSX", "CLX": "CSX", "SPR": "SPR", "GLC": "SPR",
                     "ZEN": "ZEN", "ZEN1": "ZEN", "ZEN2": "ZEN2", "TX2": "TX2", "ICX": "ICX",
                     "HSW": "HSW", "BDW": "BDW", "SNB": "SNB", "IVB": "IVB", "A64FX": "A64FX",
                     "ZEN3": "ZEN3", "ZEN4": "ZEN4", "N1": "N1", "V2": "V2"}
TOOL_KEYS = ("kerncraft", "OSACA")


def resolve_database(machine) -> str:
    """Our port-model database for a machine file's ``in-core model`` entry."""
    from kerncraft.memo.incore_analyses import bundled_databases   # light: no DB parser

    known = {name.upper(): name for name in bundled_databases()}
    entries = dict(machine.in_core_model)
    if "kerncraft" in entries:
        name = str(entries["kerncraft"])
        if name.upper() not in known:
            raise KerncraftError(f"machine file names in-core model kerncraft: {name}, but no such "
                                 f"database exists (available: {', '.join(sorted(known))})")
        return known[name.upper()]
    code = str(entries.get("OSACA", "")).upper()
    mapped = OSACA_TO_DATABASE.get(code)
    if mapped and mapped.upper() in known:
        return known[mapped.upper()]
    raise KerncraftError(
        "no port-model database fits this machine (in-core model: "
        + (", ".join(f"{k}: {v}" for k, v in entries.items()) or "none")
        + f"); available databases: {', '.join(sorted(known))}. Add 'kerncraft: NAME' under "
          "'in-core model' in the machine file")


def non_overlapping_ports(machine, ports: tuple[str, ...], tool: str = "kerncraft",
                          database: str | None = None) -> tuple[str, ...]:
    """The machine file's non-overlapping ports for an in-core tool, checked against
    the ports that tool reports.

    For our analyzer the ``kerncraft`` entry is used, else the ``OSACA`` one (same
    port names); for an external tool only its own entry. A tool resource with
    several units (llvm-mca's ``Zn3Load.0``, ``Zn3Load.1``) matches its base name.
    OSACA names that our ``database`` does not have (the published Zen files' ``8D``,
    ``9D``) mean what the ECM convention says they are, the load-data paths: the
    database's ``load_data_ports`` are used instead.
    """
    keys = TOOL_KEYS if tool == "kerncraft" else (tool,)
    for key in keys:
        named = machine.non_overlapping_ports.get(key)
        if named:
            missing = [p for p in named if not port_matches(p, ports)]
            if missing and key == "OSACA" and tool == "kerncraft" and database:
                load_data = _load_data_ports(database)
                if load_data:
                    return load_data
            if missing:
                raise KerncraftError(f"machine file's non-overlapping ports {', '.join(missing)} "
                                     f"({key}) do not exist in the port model "
                                     f"(ports: {', '.join(ports)})")
            return tuple(named)
    raise KerncraftError(f"machine file gives no non-overlapping ports for the in-core model "
                         f"{tool} (non-overlapping model: ports: {keys[0]}: [...])")


def _load_data_ports(database: str) -> tuple[str, ...]:
    from kerncraft.incore.database import load_database

    return tuple(getattr(load_database(database), "load_data_ports", ()) or ())


def port_matches(name: str, ports: tuple[str, ...]) -> bool:
    """Whether the port ``name`` of a machine file is one of ``ports`` or a unit of
    it (``Zn3Load`` matches ``Zn3Load.0``)."""
    return any(p == name or p.startswith(name + ".") for p in ports)


def split_ports(port_totals: Mapping[str, float], nol: tuple[str, ...]
                ) -> tuple[float, float]:
    """(busiest non-overlapping port, busiest other port), cycles per asm iteration."""
    def is_nol(port: str) -> bool:
        return any(port == n or port.startswith(n + ".") for n in nol)

    t_nol = max((c for p, c in port_totals.items() if is_nol(p)), default=0.0)
    t_ol = max((c for p, c in port_totals.items() if not is_nol(p)), default=0.0)
    return t_nol, t_ol


def port_cycles_with_splits(port_totals: Mapping[str, float], splits) -> dict[str, float]:
    """Port cycles per assembly iteration plus the expected line-split cycles
    (:class:`~kerncraft.incore.linesplit.LineSplitEstimate` or None); the stand-alone
    analysis adds them with the same function."""
    from kerncraft.incore.linesplit import port_cycles_with_splits as add_splits
    return add_splits(port_totals, splits)


#: llvm-mca 16's CPU name of a core, by the OSACA/kerncraft code a machine file names:
#: a Kerncraft file names OSACA's model but often no LLVM-MCA entry (the published
#: ThunderX2 file), and llvm-mca's own CPU is the same core.
LLVM_MCA_CPUS = {"SNB": "sandybridge", "IVB": "ivybridge", "HSW": "haswell",
                 "BDW": "broadwell", "SKX": "skylake-avx512", "CSX": "cascadelake",
                 "ICL": "icelake-client", "ICX": "icelake-server", "SPR": "sapphirerapids",
                 "ZEN": "znver1", "ZEN1": "znver1", "ZEN2": "znver2", "ZEN3": "znver3",
                 "ZEN4": "znver4", "TX2": "thunderx2t99", "A64FX": "a64fx",
                 "N1": "neoverse-n1", "V2": "neoverse-v2"}


def tool_architecture(machine, tool: str) -> str:
    """The machine file's ``in-core model`` entry for an external tool; for llvm-mca
    without an entry, the CPU of the core the file's OSACA or kerncraft entry names
    (:data:`LLVM_MCA_CPUS`)."""
    entries = dict(machine.in_core_model)
    for key, value in entries.items():
        if key.upper() == tool.upper():
            return str(value)
    if tool.upper() == "LLVM-MCA":
        for key in ("OSACA", "kerncraft"):
            cpu = LLVM_MCA_CPUS.get(str(entries.get(key, "")).upper())
            if cpu is not None:
                return f"-mcpu={cpu}"
    example = "LLVM-MCA: -mcpu=cascadelake" if tool == "LLVM-MCA" else "OSACA: CSX"
    raise KerncraftError(f"machine file names no {tool} architecture under 'in-core model' "
                         f"(e.g. '{example}'); it has: "
                         + (", ".join(f"{k}: {v}" for k, v in entries.items()) or "none"))
