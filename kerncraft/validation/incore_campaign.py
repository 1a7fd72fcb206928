"""``kerncraft-validate --incore``: generate loop blocks, measure them, predict them with
every analyzer (the method of CesASMe, seed 003, on this host).

1. *Blocks* (:mod:`~kerncraft.validation.incore_blocks`): every kernel (the bundled
   ones and ``kernels/polybench/``) x compiler (gcc, clang where installed) x ``-O2``
   / ``-O3`` x vector width x unrolling, compiled in parallel; the loop block of each,
   deduplicated by its normalised text (the first kernel and variant name it, the
   others are listed as ``same_block``).
2. *Predictions* (:mod:`~kerncraft.validation.incore_tools`) and the benchmark
   program, in worker processes, a chunk of blocks at a time;
3. *Measurements* (:mod:`~kerncraft.validation.incore_measure`) of that chunk, one
   after the other on one pinned CPU, at real-time priority where permitted, with
   nothing else of the campaign running; the core clock is calibrated again every
   :data:`CLOCK_EVERY` blocks. Each block goes to
   the results file as soon as it is measured (:mod:`~kerncraft.validation.incore_record`),
   so a run that stops resumes: blocks whose key is in the file are not measured
   again. Unstable blocks are measured once more at the end.

Progress (``N/M blocks``, the estimated time left) goes to ``progress``.
"""
from __future__ import annotations

import dataclasses
import datetime
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

from kerncraft.errors import KerncraftError
from kerncraft.resources import bundled_dir
from kerncraft.validation.incore_blocks import (Block, base_flags, block_key, block_kernel,
                                                make_block, variants)
from kerncraft.validation.incore_measure import (BlockMeasurement, MeasureOptions,
                                                 build_program, calibrated_hz,
                                                 measure_extents, read_load, realtime_prefix)
from kerncraft.validation.incore_record import BlockRecord, append_result, read_results
from kerncraft.validation.incore_tools import (ExternalTools, find_external_tools,
                                               predict_block)

__all__ = ["QUICK_KERNELS", "CLOCK_EVERY", "CampaignOptions", "CampaignResult",
           "kernel_files", "default_results", "host_identity", "run_campaign"]

QUICK_KERNELS = ("copy", "triad", "sum_reduction", "kahan-dot", "2d-5pt", "seidel-2d",
                 "mvt-x2", "symm")
CLOCK_EVERY = 25
CHUNK = 24


def kernel_files(names: Sequence[str] = (), quick: bool = False) -> list[tuple[str, Path]]:
    """(name, file) of the kernels: the given names or paths, else every bundled kernel
    and every Polybench-like one (``--quick``: :data:`QUICK_KERNELS`)."""
    folder = bundled_dir("kernels")
    everything = {p.stem: p for p in [*sorted(folder.glob("*.c")),
                                      *sorted((folder / "polybench").glob("*.c"))]}
    if not names:
        names = QUICK_KERNELS if quick else tuple(everything)
    chosen = []
    for name in names:
        path = Path(name)
        if path.is_file():
            chosen.append((path.stem, path))
        elif name in everything:
            chosen.append((name, everything[name]))
        else:
            raise KerncraftError(f"unknown kernel {name!r}: no such file and no bundled kernel "
                                 f"of that name (bundled: {', '.join(everything)})")
    return chosen


def host_identity(cpuinfo: str = "/proc/cpuinfo") -> dict[str, Any]:
    """The CPU description of this host (``slug``: the key part of its blocks)."""
    from kerncraft.validation.corpus import host_slug
    from kerncraft.validation.hostinfo import cpu_description

    try:
        text = Path(cpuinfo).read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    description = cpu_description(text)
    return {**description, "slug": host_slug(description)}


def default_results(host_slug: str) -> Path:
    """``<cache>/incore-campaign/<host>.jsonl`` (the kerncraft cache directory)."""
    from kerncraft.diskstore import cache_directory

    base = cache_directory()
    if base is None:
        raise KerncraftError("caching is off (KERNCRAFT_NO_CACHE): give --results FILE for "
                             "the measured blocks")
    return base / "incore-campaign" / f"{host_slug}.jsonl"


@dataclass(frozen=True)
class CampaignOptions:
    machine_path: Path
    kernels: tuple[tuple[str, Path], ...]
    compilers: tuple[str, ...]
    results: Path
    measure: MeasureOptions
    quick: bool = False
    jobs: int = 2


@dataclass(frozen=True)
class CampaignResult:
    records: tuple[BlockRecord, ...]        # every distinct block with a measurement
    skipped: tuple[tuple[str, str], ...]    # (kernel and variant, reason)
    variants: int                           # kernel x variant combinations compiled
    distinct: int
    new: int                                # measured in this run
    measured_now: frozenset                 # keys of the blocks measured in this run
    tools: ExternalTools
    host: dict
    notes: tuple[str, ...]
    load: dict
    wall_seconds: float
    started: datetime.datetime = field(default_factory=lambda: datetime.datetime.now())


def _widths() -> tuple[str, ...]:
    from kerncraft.measure.topology import cpu_flags

    return ("scalar", "128", "256", "512") if "avx512f" in cpu_flags() else \
        ("scalar", "128", "256")


def _make(job) -> Block | str:
    name, path, variant, budget = job
    try:
        return make_block(name, path, variant, budget)
    except KerncraftError as exc:
        return str(exc).splitlines()[0]


def _pool(jobs: int) -> ProcessPoolExecutor:
    import multiprocessing

    return ProcessPoolExecutor(max(1, jobs), mp_context=multiprocessing.get_context("fork"))


def generate(options: CampaignOptions, machine, pool, progress: TextIO
             ) -> tuple[list[Block], list[tuple[str, str]], int, list[str]]:
    """(distinct blocks, skipped (label, reason), combinations, notes)."""
    from kerncraft.validation.incore_sizes import l1_budget

    compilers, notes = {}, []
    for compiler in options.compilers:
        flags, note = base_flags(machine, compiler)
        compilers[compiler] = flags
        notes += [note] if note else []
    found = variants(compilers, _widths(), ("-O3",) if options.quick else ("-O2", "-O3"),
                     unrolling=not options.quick)
    budget = l1_budget(machine)
    jobs = [(name, path, v, budget) for name, path in options.kernels for v in found]
    print(f"incore: compiling {len(jobs)} kernel x variant combinations "
          f"({len(options.kernels)} kernels, {len(found)} variants)", file=progress, flush=True)
    blocks: dict[str, Block] = {}
    skipped = []
    for (name, _, variant, _), made in zip(jobs, pool.map(_make, jobs, chunksize=8)):
        label = f"{name} {variant.label()}"
        if isinstance(made, str):
            skipped.append((label, made))
        elif made.text in blocks:
            first = blocks[made.text]
            blocks[made.text] = dataclasses.replace(first,
                                                    same_block=first.same_block + (label,))
        else:
            blocks[made.text] = made
    return list(blocks.values()), skipped, len(jobs), notes


def _prepare(job) -> tuple[dict, tuple | str]:
    """In a worker: (predictions, (executable, short args, long args) or the reason)."""
    block, machine_path, tools = job
    predictions = predict_block(block.text, machine_path, tools,
                                block_kernel(block.kernel, block.extents.long, block.kernel_path))
    try:
        program = build_program(block, block.extents)
        built: tuple | str = (str(program[0]), program[1], program[2])
    except KerncraftError as exc:
        built = str(exc).splitlines()[0]
    return {t: p.to_dict() for t, p in predictions.items()}, built


def _record(block: Block, key: str, host: str, predictions: dict,
            measurement: BlockMeasurement, attempts: int) -> BlockRecord:
    return BlockRecord({
        "key": key, "host": host, "kernel": block.kernel, "family": block.family,
        "compiler": block.variant.compiler, "compiler_version": block.compiler_version,
        "flags": " ".join(block.flags), "variant": block.variant.to_dict(),
        "same_block": list(block.same_block), "block": block.text,
        "instructions": block.instructions,
        "iterations_per_asm_iteration": block.iterations_per_asm_iteration,
        "unroll": block.unroll, "simd_width": block.simd_width,
        "outer_unroll": block.outer_unroll, "extents": block.extents.to_dict(),
        "measured": {**measurement.to_dict(), "attempts": attempts},
        "predictions": predictions})


class _Clock:
    """The calibrated core clock, calibrated again every :data:`CLOCK_EVERY` uses."""

    def __init__(self, cpu: int, calibrate: Callable[[int], float]) -> None:
        self.cpu, self.calibrate, self.uses, self.hz = cpu, calibrate, 0, 0.0
        self.samples: list[float] = []

    def __call__(self) -> float:
        if self.uses % CLOCK_EVERY == 0:
            self.hz = self.calibrate(self.cpu)
            self.samples.append(self.hz)
        self.uses += 1
        return self.hz


def _eta(started: float, done: int, total: int) -> str:
    if not done:
        return "?"
    left = (time.monotonic() - started) / done * (total - done)
    return f"{int(left // 60)}m{int(left % 60):02d}s"


def _line(record: BlockRecord) -> str:
    measured = record.measured
    ours = record.prediction("kerncraft")
    if measured is None:
        return f"{record.label}: no measurement"
    text = f"{record.label}: measured {measured:.2f} cy"
    if ours is not None and ours.cycles:
        text += f", kerncraft {ours.cycles:.2f} ({100 * (ours.cycles / measured - 1):+.0f} %)"
    return text + (" (unstable)" if record.unstable else "")


Measure = Callable[..., BlockMeasurement]


def _measure_one(block: Block, built, predictions: dict, clock: _Clock, options: MeasureOptions,
                 prefix: Sequence[str], measure: Measure) -> BlockMeasurement:
    executable, short, long = built
    expected = (predictions.get("kerncraft") or {}).get("cy") or 1.0
    return measure(Path(executable), short, long, block.extents.asm_iterations_delta, clock(),
                   options, expected_cycles=expected, prefix=prefix)


def run_campaign(options: CampaignOptions, machine, progress: TextIO | None = None, *,
                 measure: Measure = measure_extents,
                 calibrate: Callable[[int], float] = calibrated_hz,
                 tools: ExternalTools | None = None) -> CampaignResult:
    """The campaign (module doc); ``measure``, ``calibrate`` and ``tools`` may be replaced
    (tests)."""
    from kerncraft.validation.hostinfo import load_summary

    progress = progress if progress is not None else sys.stderr
    wall, started = time.monotonic(), datetime.datetime.now().astimezone()
    host = host_identity()
    tools = tools if tools is not None else find_external_tools(machine)
    load = {"before": load_summary(os.cpu_count() or 1)}
    existing = read_results(options.results)
    with _pool(options.jobs) as pool:
        blocks, skipped, combinations, notes = generate(options, machine, pool, progress)
        keyed = [(b, block_key(b.text, b.flags, b.compiler_version, host["slug"]))
                 for b in blocks]
        todo = [(b, k) for b, k in keyed if k not in existing]
        print(f"incore: {len(blocks)} distinct blocks ({len(skipped)} combinations skipped); "
              f"{len(blocks) - len(todo)} already in {options.results}, {len(todo)} to "
              "measure", file=progress, flush=True)
        state = _MeasureState(options, tools, _Clock(options.measure.cpu, calibrate),
                              realtime_prefix() if options.measure.realtime else (),
                              measure, progress, host["slug"], existing)
        skipped += state.run(pool, todo)
        skipped += state.run(pool, state.retry_unstable(), attempt=2)
    load["during"] = state.load_document()
    load["after"] = load_summary(os.cpu_count() or 1)
    records = tuple(existing[k] for _, k in keyed if k in existing)
    return CampaignResult(records, tuple(skipped), combinations, len(blocks), state.new,
                          frozenset(state.keys), tools, host,
                          tuple(notes + list(tools.notes)), load, time.monotonic() - wall,
                          started)


class _MeasureState:
    """The measuring loop: chunks predicted in parallel, then measured one by one."""

    def __init__(self, options: CampaignOptions, tools: ExternalTools, clock: _Clock,
                 prefix: Sequence[str], measure: Measure, progress: TextIO, host: str,
                 existing: dict[str, BlockRecord]) -> None:
        self.options, self.tools, self.clock, self.prefix = options, tools, clock, prefix
        self.measure, self.progress, self.host, self.existing = measure, progress, host, existing
        self.loads: list[float] = []
        self.keys: set[str] = set()
        self.new = 0
        self.unstable: list[tuple[Block, str]] = []

    def run(self, pool, todo: list[tuple[Block, str]], attempt: int = 1
            ) -> list[tuple[str, str]]:
        """Measure ``todo``, a chunk at a time: the workers prepare a chunk, then they
        idle while it is measured (work on the other CPU of the 2-vCPU development VM
        spreads repeated passes of a copy loop from 1.03-1.06 to 0.88-1.19 cy)."""
        skipped, started = [], time.monotonic()
        chunks = [todo[first:first + CHUNK] for first in range(0, len(todo), CHUNK)]
        number = 0
        for chunk in chunks:
            prepared = [future.result() for future in self._submit(pool, chunk)]
            for (block, key), (predictions, built) in zip(chunk, prepared):
                number += 1
                label = f"{block.kernel} {block.variant.label()}"
                try:
                    if isinstance(built, str):
                        raise KerncraftError(built)
                    result = _measure_one(block, built, predictions, self.clock,
                                          self.options.measure, self.prefix, self.measure)
                except KerncraftError as exc:
                    skipped.append((label, str(exc).splitlines()[0]))
                    continue
                record = self._keep(block, key, predictions, result, attempt)
                what = "measure" if attempt == 1 else "again"
                print(f"incore {what} {number}/{len(todo)} (ETA "
                      f"{_eta(started, number, len(todo))}): {_line(record)}",
                      file=self.progress, flush=True)
        return skipped

    def _submit(self, pool, chunk: list[tuple[Block, str]]) -> list:
        machine = str(self.options.machine_path)
        return [pool.submit(_prepare, (block, machine, self.tools)) for block, _ in chunk]

    def _keep(self, block: Block, key: str, predictions: dict, result: BlockMeasurement,
              attempt: int) -> BlockRecord:
        record = _record(block, key, self.host, predictions, result, attempt)
        append_result(self.options.results, record)
        self.existing[key] = record
        self.keys.add(key)
        self.new += attempt == 1
        self.loads += [v for v in (result.load_before, result.load_after) if v is not None]
        if result.unstable and attempt == 1:
            self.unstable.append((block, key))
        return record

    def retry_unstable(self) -> list[tuple[Block, str]]:
        if self.unstable:
            print(f"incore: measuring the {len(self.unstable)} unstable blocks once more",
                  file=self.progress, flush=True)
        return self.unstable

    def load_document(self) -> dict[str, Any]:
        return {"samples": len(self.loads), "load1_min": min(self.loads, default=None),
                "load1_max": max(self.loads, default=None),
                "clock_hz": [round(hz) for hz in self.clock.samples]}
