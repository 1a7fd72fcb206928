"""``kerncraft-validate --incore --replay DIR ...``: recorded blocks predicted again.

A recording (:mod:`kerncraft.validation.incore_record`) holds every block's text and
measured cycles, and what each analyzer predicted when it was recorded. Replaying
predicts each block again with *our* analyzer (static and simulated) from the recorded
machine file, measures nothing and runs no external tool (llvm-mca's and OSACA's
predictions stay as recorded), and scores again: a change of the in-core model is
scored on every host measured so far. :func:`compare` puts the scores now next to the
recorded ones; :data:`GUARD` is how much our MAPE may grow before the corpus test fails.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from kerncraft.validation.incore_blocks import block_kernel
from kerncraft.validation.incore_record import BlockRecord, IncoreRecording
from kerncraft.validation.incore_score import ToolScore, score_tools
from kerncraft.validation.incore_tools import OURS, TOOLS, predict_block

__all__ = ["GUARD", "repredict", "ReplayComparison", "replay", "compare"]

#: Our MAPE may exceed the recorded one by this much (one percentage point).
GUARD = 0.01


def _predict(job) -> dict:
    text, machine_path, kernel, bindings = job
    bound = block_kernel(kernel, bindings) if kernel and bindings else None
    return {t: p for t, p in predict_block(text, machine_path, None, bound).items()
            if t in OURS}


def repredict(records: Sequence[BlockRecord], machine_path: str, jobs: int = 1
              ) -> list[BlockRecord]:
    """The records with our analyzer's predictions made again now (``jobs`` processes;
    line splits from the bundled kernel each block was compiled from, at its long
    extent, as when it was recorded)."""
    work = [(r.text, str(machine_path), r.kernel,
             (r.doc.get("extents") or {}).get("long")) for r in records]
    if jobs > 1 and len(work) > 8:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            fresh = list(pool.map(_predict, work, chunksize=16))
    else:
        fresh = [_predict(job) for job in work]
    return [r.with_predictions(p) for r, p in zip(records, fresh)]


@dataclass(frozen=True)
class ReplayComparison:
    """Scores of one recording now and as recorded, per tool."""

    recording: str
    host: str
    now: Mapping[str, ToolScore]
    recorded: Mapping[str, Mapping[str, Any]]     # the recorded score documents

    def change(self, tool: str) -> float | None:
        """MAPE now minus MAPE recorded (a fraction; None if either is missing)."""
        before = (self.recorded.get(tool) or {}).get("mape")
        now = self.now.get(tool)
        if before is None or now is None:
            return None
        return now.mape - before

    def grown(self, tool: str) -> bool:
        change = self.change(tool)
        return change is not None and change > GUARD + 1e-12

    def to_dict(self) -> dict[str, Any]:
        return {"recording": self.recording, "host": self.host,
                "tools": {t: {**s.to_dict(), "recorded_mape": (self.recorded.get(t) or {})
                              .get("mape"), "change": self.change(t), "grown": self.grown(t)}
                          for t, s in self.now.items()}}


def replay(recording: IncoreRecording, jobs: int = 1) -> list[BlockRecord]:
    """The recorded blocks with our predictions made now."""
    return repredict(recording.blocks, str(recording.machine_file), jobs)


def compare(recording: IncoreRecording, records: Sequence[BlockRecord]) -> ReplayComparison:
    """The scores of the replayed ``records`` next to the recorded ones."""
    recorded = (recording.campaign.get("score") or {}).get("tools") or {}
    host = str(recording.host.get("model_name") or recording.host.get("vendor") or "unknown")
    return ReplayComparison(recording.name, host, score_tools(records, TOOLS), recorded)
