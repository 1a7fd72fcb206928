"""Record every report the command line prints over a matrix of kernels x machine
files x models, so that a refactoring can be shown to change no output.

Usage::

    python benchmarks/output_matrix.py OUTDIR          # record (about 3 minutes, 2 processes)
    diff -r BEFORE_DIR AFTER_DIR                       # nothing printed: no change

For every (kernel, machine file, model, verbosity) it runs ``kerncraft`` with every
cache off (``KERNCRAFT_NO_CACHE=1``) and keeps stdout, stderr, exit code, the
``--json`` document and the ``--store`` line; ``kerncraft-incore`` text and JSON of
the bundled assembly test inputs are recorded too. ``-p Benchmark`` is left out: it
measures, so its numbers differ from run to run.
"""
from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = Path(os.environ.get("KERNCRAFT_PUBLISHED_FILES",
                                ROOT.parent / "shared" / "reference" / "kerncraft-machine-files"))

KERNELS = {
    "2d-5pt": ["-D", "N", "1000", "-D", "M", "1000"],
    "triad": ["-D", "N", "2000000"],
    "3d-7pt": ["-D", "N", "100", "-D", "M", "100", "-D", "L", "100"],
    "matvec": ["-D", "N", "3000", "-D", "M", "3000"],
    "kahan-dot": ["-D", "N", "10000"],
    "gs-2d-5pt": ["-D", "N", "500", "-D", "M", "500"],
    "copy": ["-D", "N", "1000-100000:3log"],          # a sweep of 3 points
}
MACHINES = ["CSX", "ZEN5-VM", str(PUBLISHED / "SkylakeSP_Gold-6148.yml")]
MODELS = ["ECM", "ECMData", "ECMCPU", "RooflineFLOP", "RooflineASM", "LC"]
EXTRA = [("ECM-SIM", ["-p", "ECM", "-P", "SIM"]), ("ECM-4c", ["-p", "ECM", "-c", "4"]),
         ("Roofline-FLOPs", ["-p", "Roofline", "--unit", "FLOP/s"])]


def _run(argv: list[str], outdir: Path, name: str) -> None:
    env = dict(os.environ, KERNCRAFT_NO_CACHE="1")
    json_path, store_path = outdir / f"{name}.json", outdir / f"{name}.store"
    store_path.unlink(missing_ok=True)
    done = subprocess.run(argv + ["--json", str(json_path), "--store", str(store_path)]
                          if argv[0] == "kerncraft" else argv,
                          capture_output=True, text=True, env=env, cwd=ROOT)
    (outdir / f"{name}.out").write_text(
        f"exit {done.returncode}\n--- stdout\n{done.stdout}--- stderr\n{done.stderr}")


def jobs() -> list[tuple[list[str], str]]:
    found = []
    for kernel, defines in KERNELS.items():
        for machine in MACHINES:
            tag = f"{kernel}__{Path(machine).stem}"
            runs = [(m, ["-p", m]) for m in MODELS] + EXTRA
            for label, model_args in runs:
                for verbose in ((), ("-v",)):
                    argv = (["kerncraft", *model_args, "-m", machine, f"kernels/{kernel}.c",
                             *defines, *verbose])
                    found.append((argv, f"{tag}__{label}{'__v' if verbose else ''}"))
    for asm in sorted((ROOT / "tests" / "data" / "asm").glob("*.s"))[:12]:
        for arch in ("CSX", "ZEN5"):
            for extra in ((), ("--json", "-")):
                name = f"incore__{asm.stem}__{arch}{'__json' if extra else ''}"
                found.append((["kerncraft-incore", "--arch", arch, str(asm), *extra], name))
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    outdir = Path(argv[0])
    outdir.mkdir(parents=True, exist_ok=True)
    todo = jobs()
    with ThreadPoolExecutor(max_workers=2) as pool:
        for number, _ in enumerate(pool.map(lambda job: _run(job[0], outdir, job[1]), todo), 1):
            if number % 50 == 0:
                print(f"{number}/{len(todo)}", file=sys.stderr)
    # file names inside the documents are absolute: make them comparable across folders
    for path in outdir.iterdir():
        text = path.read_text().replace(str(outdir), "OUTDIR")
        path.write_text(text.replace(str(ROOT), "ROOT").replace(str(PUBLISHED), "PUBLISHED"))
    print(f"{len(todo)} runs recorded in {outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
