"""Every bundled kernel x every published Kerncraft machine file x ECM (issue 12).

The refusals that remain are listed in ``docs/compatibility.md`` and asserted here:
a published file without FLOP figures (``INFORMATION_REQUIRED``) refuses RooflineFLOP
with a located machine-file error, never a traceback. Sizes put every kernel's
working set beyond the caches of the largest file (200 per dimension for 2D/3D
kernels would not, so 1D kernels get N = 10^7).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import kerncraft
from kerncraft.errors import MachineFileError
from support.published import HOW_TO_GET, PUBLISHED_DIR

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = PUBLISHED_DIR
FILES = sorted(PUBLISHED.glob("*.yml"))
KERNELS = sorted((REPO / "kernels").glob("*.c"))
# Files whose FLOPs per cycle are INFORMATION_REQUIRED in the published version.
NO_FLOPS = {"A64FX_qpace4.yml", "ARMv8_ThunderX2-CN9980.yml"}

pytestmark = pytest.mark.skipif(not FILES, reason=HOW_TO_GET)


def _defines(source: str) -> dict[str, int]:
    names = [c for c in "NMLPQ" if f"{c}]" in source or f"{c};" in source or f"< {c}" in source]
    if len(names) <= 1:
        return {n: 10_000_000 for n in names}
    return {n: 400 for n in names}


def _aarch64(path: Path) -> bool:
    return "isa: aarch64" in path.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("machine", FILES, ids=[p.stem for p in FILES])
def test_every_bundled_kernel_predicts_ecm(machine: Path):
    if _aarch64(machine) and shutil.which("aarch64-linux-gnu-gcc") is None:
        pytest.skip("aarch64-linux-gnu-gcc not installed")
    failed = {}
    for kernel in KERNELS:
        try:
            result = kerncraft.analyze(str(kernel), str(machine), model="ECM",
                                       defines=_defines(kernel.read_text()))
        except Exception as exc:   # collected: the assertion lists every failure
            failed[kernel.stem] = f"{type(exc).__name__}: {exc}"
            continue
        # A prediction is at least its in-core time and finite.
        assert result.t_ol > 0 and result.prediction_cy_per_cl >= result.t_ol
    assert failed == {}


@pytest.mark.parametrize("machine", FILES, ids=[p.stem for p in FILES])
def test_roofline_flop_runs_or_names_the_missing_field(machine: Path):
    kernel = str(REPO / "kernels" / "triad.c")
    if machine.name in NO_FLOPS:
        with pytest.raises(MachineFileError) as info:
            kerncraft.analyze(kernel, str(machine), model="RooflineFLOP", defines={"N": 10**7})
        assert "FLOPs per cycle" in str(info.value)
    else:
        result = kerncraft.analyze(kernel, str(machine), model="RooflineFLOP",
                                   defines={"N": 10**7})
        assert result.to_dict()
