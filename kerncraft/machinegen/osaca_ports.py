"""The ECM port split in OSACA's port names, for the machine files we write.

Kerncraft 0.8.18 runs ECM and ECMCPU with OSACA by default and reads the ports of
``overlapping model`` / ``non-overlapping model`` under the key ``OSACA``; a file
without them loads in Kerncraft but its ECM stops (``KeyError: 'OSACA'``). So a
generated file names both splits: ours (``kerncraft:``) and OSACA's.

Facts from OSACA 0.7's port models (``osaca/data/<arch>.yml``: its ``ports`` list
and the data ports of ``load_throughput_default``); as in the published Kerncraft
files, the load-data ports do not overlap with cache transfers and every other port
does. Where OSACA has no separate data ports (SPR, Zen 3, Neoverse N1/V2) its load
ports stand for them.
"""
from __future__ import annotations

__all__ = ["osaca_ecm_ports"]

# arch -> (every port, the load-data ports)
_OSACA_PORTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "SNB": (("0", "1", "5", "2", "3", "2D", "3D", "4"), ("2D", "3D")),
    "IVB": (("0", "0DV", "1", "2", "2D", "3", "3D", "4", "5"), ("2D", "3D")),
    "HSW": (("0", "0DV", "1", "2", "2D", "3", "3D", "4", "5", "6", "7"), ("2D", "3D")),
    "BDW": (("0", "0DV", "1", "2", "2D", "3", "3D", "4", "5", "6", "7"), ("2D", "3D")),
    "SKX": (("0", "0DV", "1", "2", "2D", "3", "3D", "4", "5", "6", "7"), ("2D", "3D")),
    "CSX": (("0", "0DV", "1", "2", "2D", "3", "3D", "4", "5", "6", "7"), ("2D", "3D")),
    "ICL": (("0", "0DV", "1", "1DV", "2", "2D", "3", "3D", "4", "5", "6", "7", "8", "9"),
            ("2D", "3D")),
    "ICX": (("0", "0DV", "1", "1DV", "2", "2D", "3", "3D", "4", "5", "6", "7", "8", "9"),
            ("2D", "3D")),
    "SPR": (("0", "0DV", "1", "1DV", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"),
            ("2", "3", "11")),
    "ZEN1": (("0", "1", "2", "3", "3DV", "4", "5", "6", "7", "8", "9", "8D", "9D", "ST"),
             ("8D", "9D")),
    "ZEN2": (("0", "1", "2", "3", "3DV", "4", "5", "6", "7", "8", "8D", "9", "9D", "10", "10D"),
             ("8D", "9D")),
    "ZEN3": (("0", "1", "2", "3", "DV0", "DV1", "4", "5", "6", "7", "8", "8DV", "9", "10",
              "11", "12", "13"), ("11", "12")),
    "ZEN4": (("0", "1", "1D", "2", "3", "3D", "4", "4DV", "5", "5D", "6", "7", "8", "9", "9DV",
              "10", "11", "11DV", "12", "13"), ("1D", "3D")),
    "TX2": (("0", "DV", "1", "2", "3", "4", "5"), ("3", "4")),
    "A64FX": (("0", "0DV", "1", "2", "3", "4", "5", "5D", "6", "6D", "7"), ("5D", "6D")),
    "N1": (("0", "1", "2", "3", "4", "4DV", "5", "6", "7"), ("6", "7")),
    "V2": (("0", "1", "2", "3", "4", "5", "6", "6DV", "7", "7DV", "8", "8DV", "9", "10", "10DV",
            "11", "12", "13", "14", "15", "16"), ("12", "13", "14")),
}


def osaca_ecm_ports(arch: str | None) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(overlapping, non-overlapping) ports of OSACA's model ``arch``, or None if unknown.

    >>> osaca_ecm_ports("ZEN4")[1]
    ('1D', '3D')
    """
    entry = _OSACA_PORTS.get((arch or "").upper())
    if entry is None:
        return None
    every, data = entry
    return tuple(p for p in every if p not in data), data
