#!/usr/bin/env python3
"""Microbenchmarks behind the in-core validation on this host.

``probes``: the instruction-form measurements behind the measured values of
``kerncraft/incore/databases/ICX.yml`` (ubench.py harness); ``loop_probes``:
small hand-written loops that isolate one effect each (64-byte code blocks,
cache-line splits, store loops). Run through ``incore_validation.py --probes``
and ``--loop-probes``.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(argv, timeout=300.0) -> str:
    out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, argv))} failed:\n{out.stderr[-800:]}")
    return out.stdout


def _pinned(argv, cpu: int, realtime: bool) -> list[str]:
    cmd = [str(a) for a in argv]
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", str(cpu), *cmd]
    if realtime and shutil.which("chrt"):
        cmd = ["chrt", "-f", "50", *cmd]
    return cmd


# ---------------------------------------------------------------------- probes
def _split_benches() -> list[tuple[str, str, list[str]]]:
    """Cache-line-split loads and stores: every access starts 8 bytes before a 64-byte
    line ends (xmm, ymm, zmm), against the same accesses aligned to the line; alone and
    mixed two loads + one store (a stencil's mix)."""
    import ubench as U

    n = U.UNROLL
    cases = []
    for w, size in (("xmm", 16), ("ymm", 32), ("zmm", 64)):
        for tag, off in (("aligned", 0), ("split", 56)):
            load = [f"    vmovupd {(i % 32) * 64 + off}(%r14), %{w}{i % 16}" for i in range(n)]
            store = [f"    vmovupd %{w}{i % 16}, {(i % 32) * 64 + off + 10240}(%r14)"
                     for i in range(n)]
            mix = [x for k in range(n // 3) for x in (
                f"    vmovupd {(k % 32) * 64 + off}(%r14), %{w}{k % 8}",
                f"    vmovupd {(k % 32) * 64 + off + 4096 + 2048 - 64 * 8}(%r14), %{w}{8 + k % 4}",
                f"    vmovupd %{w}{12 + k % 4}, {(k % 32) * 64 + off + 10240}(%r14)")]
            cases += [(f"{tag} load {w}", w, load), (f"{tag} store {w}", w, store),
                      (f"{tag} 2 loads + 1 store {w}", w, mix)]
    return cases


def probes(cpu: str, only: list[str] | None = None) -> None:
    """Microbenchmarks behind the measured values of ICX.yml (ubench.py harness).

    Differences to ubench.py's defaults: only zmm0-15 / ymm0-15 are initialised
    (with vzeroupper first for 128/256-bit tests: dirty upper zmm state keeps the
    core in the AVX-512 licence), store addresses are 2 KiB apart from load
    addresses modulo 4 KiB (no 4K aliasing), and 512-bit tests run 30 ms per
    sample (the licence transition throttles 512-bit throughput in the first
    part of a short sample).
    """
    sys.path.insert(0, str(ROOT / "benchmarks" / "incore_microbench"))
    import ubench as U

    n = U.UNROLL
    state = {"w": "ymm"}

    def vinit() -> str:
        reg = "ymm" if state["w"] == "xmm" else state["w"]
        return ("    vzeroupper\n" + "\n".join(f"    vbroadcastsd 8(%r14), %{reg}{i}"
                                               for i in range(16))
                + "\n    movq $0, 4096(%r14)\n    movq $0, 4104(%r14)")

    def build(body, work, name):
        calib = U.BENCHES[0][2]()
        asm = (U.PROLOGUE.format(fname="calib", vinit="") + "\n".join(calib) + "\n"
               + U.EPILOGUE.split("    .section")[0]
               + U.PROLOGUE.format(fname="bench", vinit=vinit()) + "\n".join(body) + "\n"
               + U.EPILOGUE)
        (work / f"{name}.S").write_text(asm)
        exe = work / name
        subprocess.run(["gcc", "-O2", "-o", str(exe), str(U.HARNESS), str(work / f"{name}.S")],
                       check=True)
        return exe

    U.build = build
    gprs = ["%rcx", "%rdx", "%r8", "%r9", "%r10", "%r11", "%r12", "%r13"]

    def mix(w, nl, ns):
        size = {"xmm": 16, "ymm": 32, "zmm": 64}[w]
        body, k = [], 0
        while len(body) < n:
            body += [f"    vmovapd {((k * nl + j) % 32) * size}(%r14), %{w}{(k * nl + j) % 8}"
                     for j in range(nl)]
            body += [f"    vmovapd %{w}{8 + (k + j) % 8}, {((k * ns + j) % 32) * size + 10240}(%r14)"
                     for j in range(ns)]
            k += 1
        return body

    def pairs(a, b):
        return [x for _ in range(n // 2) for x in (a, b)]

    benches = [
        ("vfmadd231pd ymm, 12 chains", "ymm", [f"    vfmadd231pd %ymm12, %ymm13, %ymm{i % 12}" for i in range(n)]),
        ("vfmadd231pd zmm, 12 chains", "zmm", [f"    vfmadd231pd %zmm12, %zmm13, %zmm{i % 12}" for i in range(n)]),
        ("vaddpd zmm, 12 chains", "zmm", [f"    vaddpd %zmm12, %zmm{i % 12}, %zmm{i % 12}" for i in range(n)]),
        ("load ymm", "ymm", [f"    vmovapd {(i % 32) * 32}(%r14), %ymm{i % 16}" for i in range(n)]),
        ("load zmm", "zmm", [f"    vmovapd {(i % 32) * 64}(%r14), %zmm{i % 16}" for i in range(n)]),
        ("load zmm + load r64", "zmm", [x for i in range(n // 2) for x in (
            f"    vmovapd {(i % 32) * 64}(%r14), %zmm{i % 8}", f"    movq {(i % 32) * 64 + 8}(%r14), %rcx")]),
        ("store ymm", "ymm", [f"    vmovapd %ymm{i % 16}, {(i % 32) * 32 + 10240}(%r14)" for i in range(n)]),
        ("store ymm indexed", "ymm", [f"    vmovupd %ymm{i % 16}, {(i % 32) * 32 + 10240}(%r14,%rsi,8)" for i in range(n)]),
        ("store zmm", "zmm", [f"    vmovapd %zmm{i % 16}, {(i % 32) * 64 + 10240}(%r14)" for i in range(n)]),
        *[(f"{nl} loads + {ns} stores {w}", w, mix(w, nl, ns))
          for w in ("xmm", "ymm", "zmm") for nl, ns in ((2, 1), (1, 1))],
        ("vshufpd ymm", "ymm", [f"    vshufpd $5, %ymm14, %ymm13, %ymm{i % 8}" for i in range(n)]),
        ("vunpckhpd xmm", "ymm", [f"    vunpckhpd %xmm14, %xmm13, %xmm{i % 8}" for i in range(n)]),
        ("vunpcklpd ymm", "ymm", [f"    vunpcklpd %ymm14, %ymm13, %ymm{i % 8}" for i in range(n)]),
        ("vpermilpd ymm", "ymm", [f"    vpermilpd $5, %ymm14, %ymm{i % 8}" for i in range(n)]),
        ("vextractf128", "ymm", [f"    vextractf128 $1, %ymm14, %xmm{i % 8}" for i in range(n)]),
        ("vextractf64x2 ymm", "ymm", [f"    vextractf64x2 $1, %ymm14, %xmm{i % 8}" for i in range(n)]),
        ("vbroadcastsd xmm->ymm", "ymm", [f"    vbroadcastsd %xmm14, %ymm{i % 8}" for i in range(n)]),
        ("vmovsd xmm,xmm,xmm", "ymm", [f"    vmovsd %xmm14, %xmm13, %xmm{i % 8}" for i in range(n)]),
        ("vmovsd xmm,xmm,xmm latency", "ymm", ["    vmovsd %xmm14, %xmm0, %xmm0"] * n),
        ("lea base+disp", "ymm", [f"    leaq 8(%rbp), {gprs[i % 8]}" for i in range(n)]),
        ("lea base+index", "ymm", [f"    leaq (%rbp,%rbp), {gprs[i % 8]}" for i in range(n)]),
        ("lea base+index*8+disp", "ymm", [f"    leaq 8(%rbp,%rbp,8), {gprs[i % 8]}" for i in range(n)]),
        ("vmovsd load -> vmovq r64 (address chain)", "ymm",
         pairs("    vmovsd 4096(%r14,%rcx,8), %xmm0", "    vmovq %xmm0, %rcx")),
        ("vmovupd ymm load -> vmovq r64 (address chain)", "ymm",
         pairs("    vmovupd 4096(%r14,%rcx,8), %ymm0", "    vmovq %xmm0, %rcx")),
        ("vmovupd zmm load -> vmovq r64 (address chain)", "zmm",
         pairs("    vmovupd 4096(%r14,%rcx,8), %zmm0", "    vmovq %xmm0, %rcx")),
        ("vmovq r64->xmm->r64 round trip", "ymm", pairs("    vmovq %rcx, %xmm0", "    vmovq %xmm0, %rcx")),
        ("vmovsd store -> load (forwarding)", "ymm",
         pairs("    vmovsd %xmm0, 8192(%r14)", "    vmovsd 8192(%r14), %xmm0")),
        ("xorl zero idiom (rename width)", "ymm", [f"    xorl %e{r}, %e{r}" for r in ["cx", "dx", "si", "di"] * (n // 4)]),
        ("2 loads + add + xor0 + mov (5 uops)", "ymm", [x for i in range(n // 5 + 1) for x in (
            f"    movq {(i % 32) * 8}(%r14), %rcx", f"    movq {(i % 32) * 8 + 256}(%r14), %rdx",
            "    addq %rbp, %r8", "    xorl %r9d, %r9d", "    movq %r10, %r11")][:n - 1]),
        ("div r64 latency", "ymm", pairs("    xorl %edx, %edx", "    divq %rbp")),
        ("div r64 throughput", "ymm", [x for _ in range(n // 3) for x in (
            "    xorl %edx, %edx", "    movq %r8, %rax", "    divq %rbp")]),
        ("idiv r64 latency", "ymm", pairs("    cqto", "    idivq %rbp")),
        ("idiv r64 throughput", "ymm", [x for _ in range(n // 3) for x in (
            "    cqto", "    movq %r8, %rax", "    idivq %rbp")]),
        ("div r32 latency", "ymm", pairs("    xorl %edx, %edx", "    divl %ebp")),
        ("idiv r32 latency", "ymm", pairs("    cltd", "    idivl %ebp")),
        ("idiv r32 throughput", "ymm", [x for _ in range(n // 3) for x in (
            "    cltd", "    movl %r8d, %eax", "    idivl %ebp")]),
        *_split_benches(),
    ]
    if only:
        benches = [b for b in benches if any(o in b[0] for o in only)]
    groups = {"vmovsd load -> vmovq r64 (address chain)": 2,
              "vmovupd ymm load -> vmovq r64 (address chain)": 2,
              "vmovupd zmm load -> vmovq r64 (address chain)": 2,
              "vmovq r64->xmm->r64 round trip": 2, "vmovsd store -> load (forwarding)": 2,
              "load zmm + load r64": 2, "div r64 latency": 2, "div r64 throughput": 3,
              "idiv r64 latency": 2, "idiv r64 throughput": 3, "idiv r32 latency": 2,
              "div r32 latency": 2,
              "idiv r32 throughput": 3,
              **{f"{tag} 2 loads + 1 store {w}": 3 for tag in ("aligned", "split")
                 for w in ("xmm", "ymm", "zmm")},
              **{f"{nl} loads + {ns} stores {w}": nl + ns
                 for w in ("xmm", "ymm", "zmm") for nl, ns in ((2, 1), (1, 1))}}
    U.REALTIME = shutil.which("chrt") is not None
    print("cycles at the calibration (scalar) clock; 'per group' = per instruction x "
          "instructions of the repeated group")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for k, (name, width, body) in enumerate(benches):
            state["w"] = width
            long = width == "zmm"
            cy = U.measure(body, work, f"p{k}", cpu, target_s=0.03 if long else 0.002,
                           reps=8 if long else 30)
            size = groups.get(name)
            group = f"  = {cy * size:.2f} cy per group of {size}" if size else ""
            print(f"{name:46s} {cy:7.3f} cy/instr (calibration clock {U.LAST_GHZ:.2f} GHz){group}",
                  flush=True)


# ---------------------------------------------------------------------- loop probes
LOOP_HARNESS = r"""
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void loop(long outer, double *buf);
void calib(long n);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
                          return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char **argv) {
    long n = atol(argv[1]), inner = atol(argv[2]);
    double *a = aligned_alloc(4096, 1 << 17);
    for (int i = 0; i < 16384; i++) a[i] = 1.0;
    double best = 1e9, cbest = 1e9;
    for (int r = 0; r < 30; r++) {
        double t = now(); calib(n); t = now() - t; if (t < cbest) cbest = t;
        t = now(); loop(n / inner, a); t = now() - t; if (t < best) best = t;
    }
    printf("%.4f\n", best / cbest);       /* cycles per inner iteration */
    return 0;
}
"""
LOOP_ASM = """    .text
    .globl calib
calib:
    mov %rdi, %rcx
1:  add %rdx, %rax
    dec %rcx
    jnz 1b
    ret
    .globl loop
loop:
    push %r12
    push %rbx
    push %rbp
    push %r14
    mov %rsi, %rbx              # loads: buf, buf + 16 KiB
    lea 16384(%rsi), %r14
    lea 43008(%rsi), %rbp       # stores: 2 KiB off the loads modulo 4 KiB (no 4K aliasing)
    mov %rdi, %rcx
    mov ${bound}, %r12
    vbroadcastsd (%rsi), %ymm2
3:  xor %eax, %eax
    .p2align 6
    .skip {pad}, 0x90
2:
{body}
    jne 2b
    dec %rcx
    jnz 3b
    pop %r14
    pop %rbp
    pop %rbx
    pop %r12
    vzeroupper
    ret
    .section .note.GNU-stack,"",@progbits
"""


def loop_probes(cpu: str) -> list[tuple[str, float]]:
    """Small asm loops behind the explanations of the report: 64-byte blocks, loop
    exit cost by trip count, and streaming loops measured in isolation."""
    step = "addq ${s}, %rax; cmpq %rax, %r12"
    copy_sd = "vmovsd (%rbx,%rax), %xmm0; vmovsd %xmm0, 0(%rbp,%rax); " + step.format(s=8)
    cases = [(f"scalar copy loop (20 bytes) at 64-B block offset {pad}", 8, 1024, pad, copy_sd)
             for pad in (1, 33, 49)]
    cases += [(f"add/cmp/jne loop, {inner} iterations per instance", 8, inner, 1, step.format(s=8))
              for inner in (32, 128, 256, 1024, 4096)]
    ymm = [("2 loads + 1 store (ymm)", "vmovapd (%rbx,%rax), %ymm1; vmovapd (%r14,%rax), %ymm3; "
            "vmovapd %ymm1, 0(%rbp,%rax); "),
           ("load + store (ymm)", "vmovapd (%rbx,%rax), %ymm1; vmovapd %ymm1, 0(%rbp,%rax); "),
           ("update: vmulpd mem + store (ymm)", "vmulpd (%rbx,%rax), %ymm2, %ymm1; "
            "vmovapd %ymm1, 0(%rbx,%rax); "),
           ("triad: load + vfmadd213pd mem + store (ymm)", "vmovapd (%rbx,%rax), %ymm1; "
            "vfmadd213pd (%r14,%rax), %ymm2, %ymm1; vmovapd %ymm1, 0(%rbp,%rax); ")]
    cases += [(f"{name}, 128 iterations", 32, 128, 1, body + step.format(s=32)) for name, body in ymm]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "h.c").write_text(LOOP_HARNESS)
        for k, (name, size, inner, pad, body) in enumerate(cases):
            asm = LOOP_ASM.format(bound=size * inner, pad=pad, body=body.replace("; ", "\n    "))
            (work / f"l{k}.S").write_text(asm)
            exe = work / f"l{k}"
            subprocess.run(["gcc", "-O2", str(work / "h.c"), str(work / f"l{k}.S"), "-o", str(exe)],
                           check=True)
            value = min(float(_run(_pinned([exe, 4096000, inner], int(cpu),
                                           shutil.which("chrt") is not None)))
                        for _ in range(3))
            results.append((name, value))
            print(f"{name:55s} {value:6.3f} cy/iteration", flush=True)
    return results


