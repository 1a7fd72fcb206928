"""The replay corpus guards the accuracy on every host measured (issue 24, Build 5).

Every recording below ``benchmarks/corpus/`` (``kerncraft-validate --record``; the
folder's README says where each came from) is predicted again with the current code
and its own recorded machine file, against its recorded measurements. A change that
makes any host's median absolute ECM error, overall or at any level, more than one
percentage point worse than recorded fails here: a fix that helps one host and hurts
another shows. Nothing is measured and this host's machine does not matter; the
compiler runs only for loops the caches do not hold yet.

When a change improves a host on purpose, record that host again (or convert anew) so
the new median becomes the one guarded.
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from kerncraft.validation.corpus import find_recordings, load_recording
from kerncraft.validation.replay import GUARD, compare, replay_recording

CORPUS = Path(__file__).resolve().parents[1] / "benchmarks" / "corpus"
RECORDINGS = find_recordings([CORPUS])


def _compiler_missing(recording) -> str | None:
    import kerncraft
    from kerncraft.compilation.compiler import select_compiler
    from kerncraft.errors import ToolError
    try:
        select_compiler(kerncraft.load_machine(recording.machine_file))
    except ToolError as exc:
        return str(exc)
    return None


def test_the_corpus_has_recordings():
    assert RECORDINGS, f"no recording below {CORPUS}"


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_no_host_got_worse(path):
    recording = load_recording(path)
    missing = _compiler_missing(recording)
    if missing:
        pytest.skip(f"cannot compile the recorded kernels here: {missing}")
    result = replay_recording(recording, progress=io.StringIO())
    assert not result.skipped, [f"{s.kernel} {s.level}: {s.reason}" for s in result.skipped]
    comparison = compare(recording, result)
    recorded_levels = {lvl["level"] for lvl in recording.summary["ECM"]["levels"]}
    assert {lvl.level for lvl in comparison.levels} == recorded_levels | {"all"}
    grown = [f"{lvl.level} {100 * lvl.median_abs_error:.1f} % (recorded "
             f"{100 * lvl.recorded_median:.1f} %)" for lvl in comparison.levels if lvl.grown]
    assert not grown, (f"{recording.name}: median abs. ECM error grew by more than "
                       f"{100 * GUARD:.0f} point: " + ", ".join(grown))
