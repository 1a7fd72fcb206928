"""Measured loop blocks on disk: the campaign's results file and its recordings.

One JSON object per block (:class:`BlockRecord`), the same in the results file of a
campaign (JSON Lines, one line appended per measured block, so an interrupted campaign
resumes where it stopped) and in a recording of the replay corpus::

    DIR/<host-slug>-<date>/           e.g. benchmarks/corpus/incore/amd-epyc-f26m2-2026-11-28
        campaign.json                 format, tool, machine file, options, the external
                                      tools and their arguments, the scores as recorded
        blocks.jsonl                  every block (below)
        host.json                     the host (:mod:`kerncraft.validation.hostinfo`)
        <machine file>                a byte copy (and files it names, as for ECM)

A block: ``key`` (:func:`kerncraft.validation.incore_blocks.block_key`), ``host``,
``kernel``, ``family``, ``compiler``, ``compiler_version``, ``flags``, ``variant``
(``opt``, ``width``, ``unroll``), ``same_block`` (other kernels and variants that gave
this text), ``block`` (the normalised assembly text), ``instructions``,
``iterations_per_asm_iteration``, ``unroll``, ``simd_width``, ``outer_unroll``,
``extents`` (:class:`~kerncraft.validation.incore_sizes.Extents`), ``measured``
(:class:`~kerncraft.validation.incore_measure.BlockMeasurement`: ``cy_per_asm_iteration``,
``passes``, ``spread``, ``unstable``, ``clock_hz``, ``repetitions``,
``seconds_per_repetition``, ``load1``, ``attempts``) and ``predictions`` (per tool
``cy``, ``binding``, ``error``). A later line with the same key replaces an earlier
one (a block measured again).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from kerncraft.errors import KerncraftError
from kerncraft.validation.incore_tools import ToolPrediction

__all__ = ["FORMAT", "CAMPAIGN_FILE", "BLOCKS_FILE", "BlockRecord", "read_results",
           "append_result", "write_recording", "IncoreRecording", "load_recording",
           "find_recordings"]

FORMAT = 1
CAMPAIGN_FILE, BLOCKS_FILE, HOST_FILE = "campaign.json", "blocks.jsonl", "host.json"


@dataclass(frozen=True)
class BlockRecord:
    """One measured block as stored (``doc``) with the fields scoring needs."""

    doc: Mapping[str, Any]

    @property
    def key(self) -> str:
        return str(self.doc["key"])

    @property
    def kernel(self) -> str:
        return str(self.doc["kernel"])

    @property
    def family(self) -> str:
        return str(self.doc.get("family") or "other")

    @property
    def text(self) -> str:
        return str(self.doc["block"])

    @property
    def label(self) -> str:
        variant = self.doc.get("variant") or {}
        unroll = variant.get("unroll", "default")
        return (f"{self.kernel} {self.doc.get('compiler')} {variant.get('opt', '')} "
                f"{variant.get('width', '')}" + ("" if unroll == "default" else f" {unroll}"))

    @property
    def measured(self) -> float | None:
        value = (self.doc.get("measured") or {}).get("cy_per_asm_iteration")
        return None if value is None else float(value)

    @property
    def unstable(self) -> bool:
        return bool((self.doc.get("measured") or {}).get("unstable"))

    @property
    def not_run(self) -> bool:
        """True when counting showed that the program runs another of its loops than
        this block (``loop_check``, :mod:`kerncraft.validation.incore_loopcheck`): the
        measured time is not this block's."""
        return (self.doc.get("loop_check") or {}).get("runs") is False

    def prediction(self, tool: str) -> ToolPrediction | None:
        doc = (self.doc.get("predictions") or {}).get(tool)
        return None if doc is None else ToolPrediction.from_dict(tool, doc)

    def with_predictions(self, predictions: Mapping[str, ToolPrediction]) -> "BlockRecord":
        """This block with the given tools' predictions replaced."""
        merged = dict(self.doc.get("predictions") or {})
        merged.update({tool: p.to_dict() for tool, p in predictions.items()})
        return BlockRecord({**self.doc, "predictions": merged})


def _json_line(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, sort_keys=True, allow_nan=False) + "\n"


def read_results(path: Path) -> dict[str, BlockRecord]:
    """The blocks of a results file by key (the last line of a key wins); an absent file
    is empty, a torn last line (an interrupted write) is ignored."""
    found: dict[str, BlockRecord] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return found
    except OSError as exc:
        raise KerncraftError(f"cannot read {path}: {exc.strerror}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
            found[str(doc["key"])] = BlockRecord(doc)
        except (json.JSONDecodeError, KeyError, TypeError):
            if number == len(lines):
                continue
            raise KerncraftError(f"{path}:{number}: not a block of an in-core campaign") from None
    return found


def append_result(path: Path, record: BlockRecord) -> None:
    """Append one block to the results file (one write of one line)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as out:
            out.write(_json_line(record.doc))
    except OSError as exc:
        raise KerncraftError(f"cannot write {path}: {exc.strerror}") from None


def write_recording(parent: str | Path, records: Iterable[BlockRecord],
                    campaign: Mapping[str, Any], machine_path: str | Path,
                    host: Mapping[str, Any], started) -> Path:
    """A new recording folder ``parent/<host-slug>-<date>`` (never overwriting one)."""
    from kerncraft.userfiles import write_output
    from kerncraft.validation.corpus import host_slug, referenced_files, reserve_recording

    path, _ = reserve_recording(parent, f"{host_slug(host)}-{started.date().isoformat()}")
    machine_path = Path(machine_path)
    files = {machine_path.name: machine_path.read_bytes()}
    files.update({rel: (machine_path.parent / rel).read_bytes()
                  for rel in referenced_files(machine_path)})
    files[CAMPAIGN_FILE] = (json.dumps({**campaign, "format": FORMAT,
                                        "machine_file": machine_path.name},
                                       indent=2, sort_keys=True) + "\n").encode()
    files[HOST_FILE] = (json.dumps(dict(host), indent=2) + "\n").encode()
    files[BLOCKS_FILE] = "".join(_json_line(r.doc) for r in records).encode()
    for rel, data in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        write_output(path / rel, data, f"the recording file {path / rel}")
    return path


@dataclass(frozen=True)
class IncoreRecording:
    path: Path
    machine_file: Path
    campaign: Mapping[str, Any]
    host: Mapping[str, Any]
    blocks: tuple[BlockRecord, ...]

    @property
    def name(self) -> str:
        return self.path.name


def load_recording(path: str | Path) -> IncoreRecording:
    """The in-core recording in folder ``path``."""
    path = Path(path)
    try:
        campaign = json.loads((path / CAMPAIGN_FILE).read_text(encoding="utf-8"))
        host = json.loads((path / HOST_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise KerncraftError(f"{path}: not an in-core recording ({exc})") from None
    if campaign.get("format") != FORMAT:
        raise KerncraftError(f"{path / CAMPAIGN_FILE}: not an in-core recording of format "
                             f"{FORMAT}")
    machine = path / str(campaign.get("machine_file"))
    if not machine.is_file():
        raise KerncraftError(f"{path}: the recorded machine file {machine.name} is missing")
    blocks = tuple(read_results(path / BLOCKS_FILE).values())
    return IncoreRecording(path, machine, campaign, host, blocks)


def find_recordings(folders: Iterable[str | Path]) -> list[Path]:
    """Every in-core recording folder at or below ``folders``."""
    found: list[Path] = []
    for folder in map(Path, folders):
        if not folder.is_dir():
            raise KerncraftError(f"no such folder: {folder}")
        below = ([folder] if (folder / CAMPAIGN_FILE).is_file()
                 else sorted(p.parent for p in folder.rglob(CAMPAIGN_FILE)))
        found += [p for p in below if p not in found]
    if not found:
        raise KerncraftError(f"no in-core recording in {', '.join(map(str, folders))} (a "
                             f"recording is a folder with {CAMPAIGN_FILE})")
    return found
