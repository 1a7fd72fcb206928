"""Notebook-style example: ECM predictions for three kernels on two machines.

Run it from anywhere (``python docs/api-example.py``); it uses only the public
API of ``kerncraft`` and prints one table row per kernel, machine and size.
Each cell below could be a notebook cell.

Columns: the ECM notation in cy/CL ({T_OL || T_nOL | T_L1L2 | T_L2L3 | T_L3MEM}
become the single-core predictions T_L1 ... T_MEM), the core count n_s at which
the memory interface saturates, and the prediction for one core in MIt/s.
"""
from __future__ import annotations

from pathlib import Path

import kerncraft

ROOT = Path(__file__).resolve().parents[1]

# --- cell 1: what to predict -------------------------------------------------
KERNELS = {                     # kernel file -> sizes to sweep
    "copy.c": {"N": [10**3, 10**5, 10**7]},
    "triad.c": {"N": [10**3, 10**5, 10**7]},
    # "." binds every constant of the kernel (here N and M) to the same value
    "2d-5pt.c": {".": [100, 1000, 3000]},
}
MACHINES = ("CSX", "ZEN2")      # bundled machine files (machine-files/*.yml)


# --- cell 2: run the sweeps ----------------------------------------------------
def predict() -> list[tuple[str, str, kerncraft.SweepRow]]:
    """(kernel, machine, row) for every kernel, machine and size.

    Each machine file is loaded once and each kernel parsed once; within a
    sweep the compiled loop and the symbolic layer conditions are reused.
    """
    machines = {name: kerncraft.load_machine(name) for name in MACHINES}
    table = []
    for kernel_file, sizes in KERNELS.items():
        source = (ROOT / "kernels" / kernel_file).read_text()
        kernel = kerncraft.parse_kernel(source, filename=kernel_file)
        for name, machine in machines.items():
            # unit="It/s": ecm.prediction is in iterations per second; the ECM
            # notation (ecm.predictions, ecm.t_ol, ...) stays in cy/CL
            for row in kerncraft.sweep(kernel, machine, model="ECM", defines=sizes,
                                       cores=1, unit="It/s"):
                table.append((kernel_file, name, row))
    return table


# --- cell 3: a table ----------------------------------------------------------
HEADER = (f"{'kernel':<9} {'machine':<7} {'size':<15} {'T_OL':>6} {'T_nOL':>6} {'T_L1':>6} "
          f"{'T_L2':>6} {'T_L3':>6} {'T_MEM':>6} {'n_s':>4} {'MIt/s':>8}")


def format_row(kernel_file: str, machine: str, row: kerncraft.SweepRow) -> str:
    ecm = row.result                                      # a kerncraft.ECMResult
    size = " ".join(f"{k}={v}" for k, v in sorted(row.defines.items()))
    t = ecm.predictions                                   # cy/CL per data location
    n_s = "-" if ecm.saturation_cores is None else str(ecm.saturation_cores)
    return (f"{kernel_file:<9} {machine:<7} {size:<15} {ecm.t_ol:6.2f} {ecm.t_nol:6.2f} "
            f"{t['L1']:6.2f} {t['L2']:6.2f} {t['L3']:6.2f} {t['MEM']:6.2f} {n_s:>4} "
            f"{ecm.prediction / 1e6:8.1f}")


def main() -> None:
    print(HEADER)
    for kernel_file, machine, row in predict():
        print(format_row(kernel_file, machine, row))


if __name__ == "__main__":
    main()
