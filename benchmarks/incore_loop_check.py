"""Mark the blocks of an in-core campaign recording whose benchmark program runs another
loop (issue 26): ``python benchmarks/incore_loop_check.py RECORDING_DIR``.

Every recorded block whose benchmark holds more than one candidate loop is compiled again
(same compiler and flags; the compiler must be the recorded version), every candidate
loop gets an iteration counter (:mod:`kerncraft.validation.incore_loopcheck`), and the
program runs once at the block's short extent. The block's line in ``blocks.jsonl`` gets
``"loop_check": {"counts": [...], "chosen": i, "runs": true|false}``; scoring leaves out
the blocks with ``runs: false`` (their measured time belongs to another loop). Not a test.
"""
from __future__ import annotations

import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def _check(doc: dict) -> dict | None:
    from kerncraft.benchmark.program import benchmark_source
    from kerncraft.compilation.asm_block import select_block
    from kerncraft.compilation.compiler import compile_to_assembly
    from kerncraft.incore.x86.parser import parse_x86
    from kerncraft.validation.incore_blocks import block_kernel
    from kerncraft.validation.incore_loopcheck import loop_counts

    kernel = block_kernel(doc["kernel"], doc["extents"]["short"])
    if kernel is None:
        return None
    flags = doc["flags"].split()
    compiled = compile_to_assembly(benchmark_source(kernel), doc["compiler"], flags)
    selection = select_block(parse_x86(compiled.assembly, filename="<benchmark>"), kernel)
    if len(selection.candidates) < 2:
        return None
    counts = loop_counts(kernel, doc["compiler"], flags,
                         [c.first_line for c in selection.candidates], compiled.assembly)
    return {"counts": counts, "chosen": selection.index,
            "runs": counts[selection.index] >= max(counts)}


def main(folder: str) -> None:
    path = Path(folder) / "blocks.jsonl"
    docs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    with ProcessPoolExecutor(2) as pool:
        checks = list(pool.map(_check, docs, chunksize=4))
    for doc, check in zip(docs, checks):
        if check is not None:
            doc["loop_check"] = check
    path.write_text("".join(json.dumps(d, sort_keys=True, allow_nan=False) + "\n"
                            for d in docs))
    checked = [c for c in checks if c is not None]
    print(f"{len(docs)} blocks, {len(checked)} with several loops, "
          f"{sum(not c['runs'] for c in checked)} not the loop that runs")


if __name__ == "__main__":
    main(sys.argv[1])
