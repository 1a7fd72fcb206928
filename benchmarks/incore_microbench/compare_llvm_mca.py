#!/usr/bin/env python3
"""Compare a port-model database with llvm-mca's scheduling model.

Every register-only form of the database is instantiated with concrete
registers, assembled with gas (invalid combinations are dropped) and run
through ``llvm-mca-16 -mcpu=CPU`` once; latency and reciprocal throughput of
both are printed side by side, with a mark where they differ::

    python benchmarks/incore_microbench/compare_llvm_mca.py SKX skylake-avx512
    python benchmarks/incore_microbench/compare_llvm_mca.py SPR alderlake --only-diff

llvm-mca is used only by this script (never by the tests). Its numbers are
facts about LLVM's model, which is itself an approximation: a difference is a
prompt to check the database entry against its source, not a verdict.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kerncraft.incore.database import load_database  # noqa: E402

REGS = {
    "r64": ["%rax", "%rbx", "%rcx", "%rdx"], "r32": ["%eax", "%ebx", "%ecx", "%edx"],
    "r16": ["%ax", "%bx", "%cx", "%dx"], "r8": ["%cl", "%bl", "%al", "%dl"],
    "xmm": ["%xmm1", "%xmm2", "%xmm3", "%xmm4"], "ymm": ["%ymm1", "%ymm2", "%ymm3", "%ymm4"],
    "zmm": ["%zmm1", "%zmm2", "%zmm3", "%zmm4"], "k": ["%k1", "%k2", "%k3", "%k4"],
}


def instantiate(key: str) -> str | None:
    mnemonic, _, ops = key.partition(" ")
    out = []
    for i, t in enumerate(o for o in ops.split(",") if o):
        if t in REGS:
            out.append(REGS[t][i % 4])
        elif t == "imm":
            out.append("$1")
        elif t == "mem":
            out.append("8(%rsi)")
        elif t == "lbl":
            out.append(".Lend")
        else:
            return None
    if mnemonic.startswith(("sh", "sa", "ro")) and ops.startswith("r8,"):
        out[0] = "%cl"
    return f"{mnemonic} {', '.join(out)}".strip()


def valid_lines(lines: list[str], workdir: Path) -> list[str]:
    """Drop lines gas rejects (wrong operand combinations from brace expansion)."""
    lines = list(lines)
    for _ in range(5):
        src = workdir / "v.s"
        src.write_text("\n".join(lines + [".Lend:"]) + "\n")
        proc = subprocess.run(["as", "-o", str(workdir / "v.o"), str(src)], capture_output=True, text=True)
        bad = {int(m.group(1)) for m in re.finditer(r"v\.s:(\d+): Error", proc.stderr)}
        if not bad:
            return lines
        lines = [l for i, l in enumerate(lines, 1) if i not in bad]
    return lines


# AVX-512-only mnemonics (also with xmm/ymm operands: AVX512VL), for CPUs without AVX-512
_EVEX_ONLY = re.compile(
    r"^(vpternlog|vperm[ti]2|valign|vrcp14|vrsqrt14|vcvt\w*(qq|uqq|udq|usi)\b|vcvtusi|vpmullq|vpabsq|"
    r"vp(min|max)[su]q|vpro[lr]|vblendm|vpblendm|vgetexp|vscalef|vrndscale|vfpclass|vpconflict|"
    r"vexpand|vcompress|vmovdq[au](8|16|32|64)|vp(and|andn|or|xor)[dq] |vpsraq|vpsravq|vpmov(q|d|w)[dwb]|"
    r"vpmovs|vpmovus|vpmovm2|vpmov\w2m|vextract[fi](32|64)x|vinsert[fi](32|64)x|vbroadcast[fi](32|64)x|"
    r"vshuf[fi](32|64)x|vpdp|vpbroadcast[dq] %[re]|vptestn?m|vpcmp[a-z]*[dq] |vpcmpu?[bwdq] |vpcmp\w+, )")


def _mca(lines: list[str], cpu: str, src: Path) -> tuple[str, bool]:
    exe = shutil.which("llvm-mca-16") or shutil.which("llvm-mca")
    src.write_text("\n".join(lines) + "\n")
    try:   # llvm-mca-16 can hang on instructions the CPU model lacks
        proc = subprocess.run([exe, f"-mcpu={cpu}", "-iterations=1", "-resource-pressure=false",
                               str(src)], capture_output=True, text=True, timeout=3)
    except subprocess.TimeoutExpired:
        return "", False
    return proc.stdout, proc.returncode == 0 and "error" not in proc.stderr


def run_mca(lines: list[str], cpu: str, workdir: Path) -> dict[str, tuple[float, float]]:
    """lat/rtp per instruction text; lines llvm-mca rejects for ``cpu`` are skipped."""
    if cpu in ("alderlake", "raptorlake", "meteorlake", "gracemont"):   # no AVX-512
        lines = [l for l in lines if "zmm" not in l and "%k" not in l and not _EVEX_ONLY.match(l)]
    outputs: list[str] = []

    def bisect(chunk: list[str]) -> None:
        out, ok = _mca(chunk, cpu, workdir / "m.s")
        if ok:
            outputs.append(out)
        elif len(chunk) > 1:
            bisect(chunk[:len(chunk) // 2])
            bisect(chunk[len(chunk) // 2:])

    for c in range(0, len(lines), 64):
        bisect(lines[c:c + 64])
    res = {}
    for out in outputs:
        rows = re.findall(r"^[ \t]*(\d+)[ \t]+(\d+)[ \t]+(\d+\.\d+)[ \t]+[ \t*U]*?[ \t]{2,}(\S.*)$", out, re.M)
        for uops, lat, rtp, text in rows:
            res[" ".join(text.replace("\t", " ").split())] = (float(lat), float(rtp))
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("arch")
    ap.add_argument("cpu")
    ap.add_argument("--only-diff", action="store_true")
    ap.add_argument("--filter", default="", help="regex on form keys")
    args = ap.parse_args(argv)
    db = load_database(args.arch)
    forms = {k: e for k, e in db.forms.items() if "mem" not in k and re.search(args.filter, k)}
    inst = {k: instantiate(k) for k in forms}
    inst = {k: v for k, v in inst.items() if v}
    with tempfile.TemporaryDirectory() as tmp:
        lines = valid_lines(sorted(set(inst.values())), Path(tmp))
        mca = run_mca(lines, args.cpu, Path(tmp))
    ndiff = nmatch = 0
    for key, text in sorted(inst.items()):
        norm = " ".join(text.replace(",", ", ").split()).replace(" ,", ",")
        got = mca.get(" ".join(norm.split()))
        if got is None:
            continue
        e = forms[key]
        nmatch += 1
        diff = abs(got[0] - e.latency) > 0.5 or (e.throughput is not None and abs(got[1] - e.throughput) > 0.26)
        ndiff += diff
        if args.only_diff and not diff:
            continue
        print(f"{'*' if diff else ' '} {key:45s} db lat {e.latency:5.1f} tp {e.throughput or 0:5.2f} | "
              f"llvm-mca lat {got[0]:5.1f} tp {got[1]:5.2f}")
    print(f"# {nmatch} forms compared, {ndiff} differ (|lat| > 0.5 or |tp| > 0.26)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
