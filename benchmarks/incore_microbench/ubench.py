#!/usr/bin/env python3
"""Latency / throughput microbenchmarks without hardware counters.

Each benchmark is an unrolled loop body of instruction instances written to a
``.S`` file (AT&T syntax), linked with a small C harness (``harness.c``) that
times ``reps`` runs of the loop with ``clock_gettime`` and prints the minimum.
The core clock is calibrated first with a chain of dependent register adds
(1 cycle each on every Intel core since P6), so results are reported in core
cycles although the VM exposes no counters and turbo changes the clock.

Usage::

    python benchmarks/incore_microbench/ubench.py [--cpu 1] [--only NAME ...] [--markdown]

Benchmarks are defined in :data:`BENCHES` as (name, kind, body-generator, note).
``kind`` 'lat' means the instances form one dependency chain (result = latency),
'tp' means independent instances (result = reciprocal throughput).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
HARNESS = HERE / "harness.c"
UNROLL = 96            # instances per loop iteration (multiple of 2, 3, 4, 6, 8, 12)

PROLOGUE = """\
    .text
    .globl {fname}
    .type {fname}, @function
{fname}:
    pushq %rbx
    pushq %rbp
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rdi, %r15          # iterations
    movq %rsi, %r14          # 64-byte aligned buffer of doubles (1.0), 64 KiB
    movq %r14, %rax
    movq %r14, %rbx
    movq $1, %rcx
    movq $1, %rdx
    movq $1, %r8
    movq $1, %r9
    movq $1, %r10
    movq $1, %r11
    movq $1, %r12
    movq $1, %r13
    movq $3, %rbp
    xorl %esi, %esi          # zero index register
{vinit}
    .p2align 5
1:
"""
EPILOGUE = """\
    decq %r15
    jnz 1b
    vzeroupper
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbp
    popq %rbx
    ret
    .section .note.GNU-stack,"",@progbits
"""


def vinit(width: str = "zmm", n: int = 32) -> str:
    return "\n".join(f"    vbroadcastsd 8(%r14), %{width}{i}" for i in range(n))


# ----------------------------------------------------------------- generators
def chain(fmt: str, regs: list[str]) -> list[str]:
    """Dependent chain: instance i reads regs[i % n] and writes regs[(i+1) % n]."""
    n = len(regs)
    return [fmt.format(src=regs[i % n], dst=regs[(i + 1) % n], same=regs[i % n]) for i in range(UNROLL)]


def indep(fmt: str, accs: list[str], src: str) -> list[str]:
    """Independent instances: each accumulator forms its own short chain."""
    return [fmt.format(acc=accs[i % len(accs)], src=src, i=i) for i in range(UNROLL)]


def vec(w: str, k: int, start: int = 0) -> list[str]:
    return [f"%{w}{i}" for i in range(start, start + k)]


def fp_lat(ins: str, w: str) -> list[str]:
    return [f"    {ins} %{w}31, %{w}0, %{w}0"] * UNROLL


def fp_tp(ins: str, w: str, k: int = 16) -> list[str]:
    return indep(f"    {ins} %{w}31, {{acc}}, {{acc}}", vec(w, k), "")


def fma_lat(w: str) -> list[str]:
    return [f"    vfmadd231pd %{w}30, %{w}31, %{w}0"] * UNROLL


def fma_tp(w: str, k: int = 16) -> list[str]:
    return indep(f"    vfmadd231pd %{w}30, %{w}31, {{acc}}", vec(w, k), "")


def loads(w: str, ins: str = "vmovupd") -> list[str]:
    size = {"xmm": 16, "ymm": 32, "zmm": 64, "r64": 8}[w]
    if w == "r64":
        regs = ["%rcx", "%rdx", "%r8", "%r9", "%r10", "%r11", "%r12", "%r13"]
        return [f"    movq {(i % 32) * size}(%r14), {regs[i % 8]}" for i in range(UNROLL)]
    return [f"    {ins} {(i % 32) * size}(%r14), %{w}{i % 16}" for i in range(UNROLL)]


def stores(w: str) -> list[str]:
    size = {"xmm": 16, "ymm": 32, "zmm": 64, "r64": 8}[w]
    if w == "r64":
        return [f"    movq %rcx, {(i % 32) * size + 6144}(%r14)" for i in range(UNROLL)]
    return [f"    vmovupd %{w}{i % 16}, {(i % 32) * size + 6144}(%r14)" for i in range(UNROLL)]


def load_store_mix(w: str) -> list[str]:
    size = {"xmm": 16, "ymm": 32, "zmm": 64}[w]
    body = []
    for i in range(UNROLL // 3):
        body.append(f"    vmovupd {(2 * i % 32) * size}(%r14), %{w}{i % 8}")
        body.append(f"    vmovupd {((2 * i + 1) % 32) * size}(%r14), %{w}{8 + i % 8}")
        body.append(f"    vmovupd %{w}{16 + i % 8}, {(i % 32) * size + 6144}(%r14)")
    return body


def pointer_chase() -> list[str]:
    return ["    movq (%rax), %rax"] * UNROLL


def store_forward() -> list[str]:
    body = []
    for _ in range(UNROLL // 2):
        body.append("    movq %rcx, 8192(%r14)")
        body.append("    movq 8192(%r14), %rcx")
    return body


BENCHES: list[tuple[str, str, object, str]] = [
    ("add r64 chain (reg)", "lat", lambda: chain("    addq {src}, {dst}", ["%rcx", "%rdx"]),
     "addq %rcx,%rdx / addq %rdx,%rcx alternating: calibration (1 cy)"),
    ("add r64 chain (same reg)", "lat", lambda: ["    addq %rdx, %rcx"] * UNROLL, "addq %rdx,%rcx repeated"),
    ("add $imm chain", "lat", lambda: ["    addq $1, %rcx"] * UNROLL, "addq $1,%rcx repeated (renamer folding?)"),
    ("add $imm chain, large imm", "lat", lambda: ["    addq $123456, %rcx"] * UNROLL, "addq $123456,%rcx"),
    ("inc chain", "lat", lambda: ["    incq %rcx"] * UNROLL, "incq %rcx repeated"),
    ("sub $imm chain", "lat", lambda: ["    subq $3, %rcx"] * UNROLL, ""),
    ("add r64 throughput", "tp", lambda: indep("    addq %rbp, {acc}", ["%rcx", "%rdx", "%r8", "%r9", "%r10", "%r11", "%r12", "%r13"], ""), ""),
    ("mov r64 chain", "lat", lambda: chain("    movq {src}, {dst}", ["%rcx", "%rdx"]), "movq %rcx,%rdx / movq %rdx,%rcx: 0 if eliminated"),
    ("mov r32 chain", "lat", lambda: chain("    movl {src}, {dst}", ["%ecx", "%edx"]), ""),
    ("vmovapd ymm chain", "lat", lambda: chain("    vmovapd {src}, {dst}", ["%ymm1", "%ymm2"]), ""),
    ("vmovapd zmm chain", "lat", lambda: chain("    vmovapd {src}, {dst}", ["%zmm1", "%zmm2"]), ""),
    ("vxorpd zero idiom", "tp", lambda: ["    vxorpd %xmm0, %xmm0, %xmm0"] * UNROLL, "same source regs: no port needed"),
    ("vxorpd non-idiom", "tp", lambda: indep("    vxorpd %xmm31, %xmm30, {acc}", vec("xmm", 8), ""), "independent, p015"),
    ("xorl zero idiom", "tp", lambda: ["    xorl %ecx, %ecx"] * UNROLL, ""),
    ("imul r64 latency", "lat", lambda: ["    imulq %rbp, %rcx"] * UNROLL, ""),
    ("imul r64 throughput", "tp", lambda: indep("    imulq %rbp, {acc}", ["%rcx", "%rdx", "%r8", "%r9", "%r10", "%r11"], ""), ""),
    ("lea base+disp latency", "lat", lambda: ["    leaq 8(%rcx), %rcx"] * UNROLL, ""),
    ("lea base+index latency", "lat", lambda: ["    leaq (%rcx,%rdx), %rcx"] * UNROLL, ""),
    ("lea base+index*8+disp latency", "lat", lambda: ["    leaq 8(%rcx,%rdx,8), %rcx"] * UNROLL, "3-component"),
    ("lea base+index*8+disp throughput", "tp", lambda: indep("    leaq 8({acc},%rdx,8), {acc}", ["%rcx", "%r8", "%r9", "%r10", "%r11", "%r12"], ""), ""),
    ("shl imm latency", "lat", lambda: ["    shlq $1, %rcx"] * UNROLL, ""),
    ("load r64 pointer chase", "lat", pointer_chase, "movq (%rax),%rax, buffer[0] = &buffer[0]"),
    ("load r64 chase base+index", "lat", lambda: ["    movq (%rax,%rsi,8), %rax"] * UNROLL, "index register = 0"),
    ("store->load forward r64", "lat", store_forward, "per store+load pair / 2"),
]
for w in ("xmm", "ymm", "zmm"):
    BENCHES += [
        (f"vaddpd {w} latency", "lat", (lambda w=w: fp_lat("vaddpd", w)), ""),
        (f"vaddpd {w} throughput", "tp", (lambda w=w: fp_tp("vaddpd", w)), ""),
        (f"vmulpd {w} latency", "lat", (lambda w=w: fp_lat("vmulpd", w)), ""),
        (f"vmulpd {w} throughput", "tp", (lambda w=w: fp_tp("vmulpd", w)), ""),
        (f"vfmadd231pd {w} latency", "lat", (lambda w=w: fma_lat(w)), ""),
        (f"vfmadd231pd {w} throughput", "tp", (lambda w=w: fma_tp(w)), ""),
        (f"vdivpd {w} latency", "lat", (lambda w=w: fp_lat("vdivpd", w)), ""),
        (f"vdivpd {w} throughput", "tp", (lambda w=w: fp_tp("vdivpd", w, 8)), ""),
        (f"vsqrtpd {w} latency", "lat", (lambda w=w: [f"    vsqrtpd %{w}0, %{w}0"] * UNROLL), ""),
        (f"vsqrtpd {w} throughput", "tp", (lambda w=w: indep(f"    vsqrtpd %{w}31, {{acc}}", vec(w, 8), "")), ""),
        (f"vmovupd load {w}", "tp", (lambda w=w: loads(w)), "loads per cycle = 1/result"),
        (f"vmovupd store {w}", "tp", (lambda w=w: stores(w)), "stores per cycle = 1/result"),
        (f"2 loads + 1 store {w}", "tp", (lambda w=w: load_store_mix(w)), "per instruction (3 per group)"),
    ]
BENCHES += [
    ("vaddsd latency", "lat", lambda: fp_lat("vaddsd", "xmm"), ""),
    ("vaddsd throughput", "tp", lambda: fp_tp("vaddsd", "xmm"), ""),
    ("vmulsd latency", "lat", lambda: fp_lat("vmulsd", "xmm"), ""),
    ("vmulsd throughput", "tp", lambda: fp_tp("vmulsd", "xmm"), ""),
    ("vdivsd latency", "lat", lambda: fp_lat("vdivsd", "xmm"), ""),
    ("vdivsd throughput", "tp", lambda: fp_tp("vdivsd", "xmm", 8), ""),
    ("vsqrtsd latency", "lat", lambda: ["    vsqrtsd %xmm0, %xmm0, %xmm0"] * UNROLL, ""),
    ("vmovupd load r64", "tp", lambda: loads("r64"), "movq loads"),
    ("movq store r64", "tp", lambda: stores("r64"), ""),
    ("vaddpd ymm + vmulpd ymm mix", "tp", lambda: [
        f"    {'vaddpd' if i % 2 else 'vmulpd'} %ymm31, %ymm{i % 16}, %ymm{i % 16}" for i in range(UNROLL)], "port sharing"),
    ("vaddpd zmm + vfmadd zmm mix", "tp", lambda: [
        (f"    vaddpd %zmm31, %zmm{i % 16}, %zmm{i % 16}" if i % 2 else
         f"    vfmadd231pd %zmm30, %zmm31, %zmm{i % 16}") for i in range(UNROLL)], "both on p0/p5?"),
    ("vpermpd zmm throughput", "tp", lambda: indep("    vpermpd $0x1b, %zmm31, {acc}", vec("zmm", 8), ""), "port 5 only"),
    ("vaddpd zmm + vpermpd zmm mix", "tp", lambda: [
        (f"    vaddpd %zmm31, %zmm{i % 16}, %zmm{i % 16}" if i % 2 else
         f"    vpermpd $0x1b, %zmm31, %zmm{16 + i % 8}") for i in range(UNROLL)], "does 512-bit add use p5?"),
    ("vaddpd ymm + vpermpd ymm mix", "tp", lambda: [
        (f"    vaddpd %ymm31, %ymm{i % 16}, %ymm{i % 16}" if i % 2 else
         f"    vpermpd $0x1b, %ymm31, %ymm{16 + i % 8}") for i in range(UNROLL)], "256-bit add on p01 only?"),
    ("vaddpd xmm(same reg) lat check", "lat", lambda: ["    vaddpd %xmm0, %xmm0, %xmm0"] * UNROLL, ""),
]


def build(body: list[str], workdir: Path, name: str) -> Path:
    calib = BENCHES[0][2]()
    asm = (PROLOGUE.format(fname="calib", vinit="") + "\n".join(calib) + "\n" + EPILOGUE.split("    .section")[0]
           + PROLOGUE.format(fname="bench", vinit=vinit()) + "\n".join(body) + "\n" + EPILOGUE)
    s = workdir / f"{name}.S"
    s.write_text(asm)
    exe = workdir / name
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(HARNESS), str(s)], check=True)
    return exe


def run(exe: Path, iters: int, citers: int, reps: int, cpu: str | None) -> tuple[float, float]:
    cmd = [str(exe), str(iters), str(reps), str(citers)]
    if cpu is not None and shutil.which("taskset"):
        cmd = ["taskset", "-c", cpu] + cmd
    if REALTIME and shutil.which("chrt"):
        cmd = ["chrt", "-f", "50"] + cmd      # not preempted by other (normal) processes
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1])       # minimum seconds: bench, calibration


def measure(body: list[str], workdir: Path, name: str, cpu: str | None,
            target_s: float = 0.001, reps: int = 60) -> float:
    """Cycles per instance: min bench time / min time of the calibration chain.

    The calibration loop (dependent adds, 1 cy each) runs alternately with the
    benchmark in the same process, so clock changes and interference by other
    processes affect both minima alike.
    """
    exe = build(body, workdir, name)
    iters = citers = 200
    t, c = run(exe, iters, citers, 3, cpu)
    iters = max(200, int(iters * target_s / max(t, 1e-9)))
    citers = max(200, int(citers * target_s / max(c, 1e-9)))
    t, c = run(exe, iters, citers, reps, cpu)
    sec_per_cycle = c / (citers * UNROLL)
    global LAST_GHZ
    LAST_GHZ = 1e-9 / sec_per_cycle
    return t / (iters * len(body)) / sec_per_cycle


LAST_GHZ = 0.0
REALTIME = True


def with_clock_probe(body: list[str]) -> list[str]:
    """Interleave a dependent chain of 3*len(body) scalar adds (on %r8).

    The chain is made the bottleneck on purpose: its time per iteration gives
    the core clock *while the benchmark's instructions execute* (AVX-512
    licence frequency), independent of the scalar calibration loop.
    """
    out = []
    for ins in body:
        out.append(ins)
        out += ["    addq %r9, %r8"] * 3
    return out


def measure_probe(body: list[str], workdir: Path, name: str, cpu: str | None) -> float:
    """Core clock (GHz) during ``body``, measured with :func:`with_clock_probe`."""
    probe = with_clock_probe(body)
    cy_ratio = measure(probe, workdir, name + "p", cpu)      # cycles at calibration clock
    # per probe instruction; the chain takes 3 cy per body instruction
    per_body_ins = cy_ratio * len(probe) / len(body)
    return LAST_GHZ * 3.0 / per_body_ins


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", default="1", help="CPU to pin to with taskset ('' = no pinning)")
    ap.add_argument("--only", nargs="*", help="substrings of benchmark names")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--no-realtime", action="store_true", help="do not run under 'chrt -f 50'")
    ap.add_argument("--probe", action="store_true",
                    help="also measure the clock while each benchmark runs (AVX-512 licence)")
    args = ap.parse_args(argv)
    global REALTIME
    REALTIME = not args.no_realtime
    cpu = args.cpu or None
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        rows = []
        ghz = []
        for idx, (name, kind, gen, note) in enumerate(BENCHES):
            if args.only and not any(o in name for o in args.only):
                continue
            body = gen()
            cy = measure(body, work, f"b{idx}", cpu)
            ghz.append(LAST_GHZ)
            calib_ghz = LAST_GHZ
            cy = round(cy, 3)
            probe = ""
            if args.probe:
                f = measure_probe(body, work, f"b{idx}", cpu)
                probe = f"{f:.2f} GHz -> {cy * f / calib_ghz:.2f} cy"
            rows.append((name, kind, cy, note))
            if args.markdown:
                print(f"| {name} | {kind} | {cy:.2f} | {calib_ghz:.2f} | {probe} | {note} |", flush=True)
            else:
                print(f"{name:40s} {kind:4s} {cy:8.3f} cy  {probe:24s} {note}", flush=True)
        print(f"# core clock from the calibration chain: min {min(ghz):.3f} / max {max(ghz):.3f} GHz")
    return 0


if __name__ == "__main__":
    sys.exit(main())
