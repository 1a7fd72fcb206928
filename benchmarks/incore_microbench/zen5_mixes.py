#!/usr/bin/env python3
"""Instruction mixes behind the measured values of ``ZEN5.yml`` (AMD Zen 5).

``kerncraft-incore bench`` measures one form at a time; the port model also needs
mixes: which forms share pipes (FMA with FADD, shuffles with FADD/FMUL, conversions),
how many loads and stores of each width run per cycle together, the front-end width,
store-to-load forwarding and a few latency chains. Each case is a group of
instructions repeated to fill a 96-instruction loop body, timed with the project's
clock-calibrated harness (:func:`kerncraft.dbtools.microbench.measure_body`: pinned to
the last CPU, under ``chrt -f 50`` where allowed, minimum of 60 runs).

Usage::

    python benchmarks/incore_microbench/zen5_mixes.py [SUBSTRING ...] [--cpu N]

prints cycles per instruction and per group. Results: ``RESULTS-zen5.md``.
Register use: r14 = 64 KiB buffer (loads in its first 16 KiB, stores from 16 KiB on,
2 KiB apart modulo 4 KiB from the loads), rbx/rbp/rsi = constant sources,
zmm14/zmm15 = constant vector sources.
"""
from __future__ import annotations

import argparse

from kerncraft.dbtools.microbench import calibrated_clock, measure_body

G = ["rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13"]


def _fma(k: int, j: int, w: str = "zmm") -> str:
    return f"        vfmadd231pd %{w}14, %{w}15, %{w}{(2 * k + j) % 12}"


def _op(m: str, dst: int, w: str = "zmm") -> str:
    return f"        {m} %{w}14, %{w}15, %{w}{dst}"


def _with_two(ins, m: str):
    """Group: one instance of ``ins`` plus two independent ``m`` (vaddpd / vmulpd) zmm."""
    return lambda k: [ins(k), _op(m, k % 6), _op(m, 6 + k % 6)]


def _loads(nv: int, ng: int, w: str):
    def group(k: int) -> list[str]:
        out = [f"        vmovupd {((k * nv + j) % 32) * 128 + 64}(%r14), %{w}{(k * nv + j) % 12}"
               for j in range(nv)]
        out += [f"        movq {((k * ng + j) % 32) * 64 + 8192}(%r14), %{G[(k * ng + j) % 8]}"
                for j in range(ng)]
        return out
    return group


CASES = {
    # ---- loads and stores
    "r64 loads, 1 per line": lambda k: [f"        movq {(k % 64) * 64 + 64}(%r14), %{G[k % 8]}"],
    **{f"{nv} {w} loads + {ng} r64 loads": _loads(nv, ng, w)
       for w in ("xmm", "zmm") for nv, ng in ((1, 0), (2, 0), (1, 1), (2, 1), (1, 2), (2, 2), (1, 3))},
    "3 zmm loads": lambda k: [f"        vmovupd {((3 * k + j) % 48) * 64 + 64}(%r14), %zmm{(3 * k + j) % 12}"
                              for j in range(3)],
    "xmm stores, 1 per line": lambda k: [f"        vmovupd %xmm14, {(k % 64) * 64 + 16384}(%r14)"],
    "xmm stores, 16 B apart": lambda k: [f"        vmovupd %xmm14, {(k % 256) * 16 + 16384}(%r14)"],
    "ymm stores, 1 per line": lambda k: [f"        vmovupd %ymm14, {(k % 64) * 64 + 16384}(%r14)"],
    "ymm stores, 32 B apart": lambda k: [f"        vmovupd %ymm14, {(k % 128) * 32 + 16384}(%r14)"],
    "zmm stores, 64 B apart": lambda k: [f"        vmovupd %zmm14, {(k % 64) * 64 + 16384}(%r14)"],
    "r64 stores, 1 per line": lambda k: [f"        movq %rbx, {(k % 64) * 64 + 16384}(%r14)"],
    "r64 stores, 8 B apart": lambda k: [f"        movq %rbx, {(k % 512) * 8 + 16384}(%r14)"],
    "copy zmm: 1 load + 1 store": lambda k: [
        f"        vmovupd {(k % 64) * 64 + 64}(%r14), %zmm{k % 12}",
        f"        vmovupd %zmm{(k + 6) % 12}, {(k % 64) * 64 + 18432}(%r14)"],
    "copy ymm: 1 load + 1 store (32 B steps)": lambda k: [
        f"        vmovupd {(k % 128) * 32 + 64}(%r14), %ymm{k % 12}",
        f"        vmovupd %ymm{(k + 6) % 12}, {(k % 128) * 32 + 18432}(%r14)"],
    "triad zmm: 2 loads + 1 store": lambda k: [
        f"        vmovupd {(k % 64) * 64 + 64}(%r14), %zmm{k % 6}",
        f"        vmovupd {(k % 64) * 64 + 9216}(%r14), %zmm{6 + k % 6}",
        f"        vmovupd %zmm13, {(k % 64) * 64 + 18432}(%r14)"],
    "triad ymm: 2 loads + 1 store (32 B steps)": lambda k: [
        f"        vmovupd {(k % 128) * 32 + 64}(%r14), %ymm{k % 6}",
        f"        vmovupd {(k % 128) * 32 + 9216}(%r14), %ymm{6 + k % 6}",
        f"        vmovupd %ymm13, {(k % 128) * 32 + 18432}(%r14)"],
    "2 zmm loads + 2 zmm stores": lambda k: [
        f"        vmovupd {(k % 64) * 64 + 64}(%r14), %zmm{k % 6}",
        f"        vmovupd {(k % 64) * 64 + 9216}(%r14), %zmm{6 + k % 6}",
        f"        vmovupd %zmm13, {(k % 64) * 64 + 18432}(%r14)",
        f"        vmovupd %zmm14, {(k % 64) * 64 + 23552}(%r14)"],
    "2 r64 loads + 2 r64 stores": lambda k: [
        f"        movq {(k % 64) * 64 + 64}(%r14), %{G[k % 8]}",
        f"        movq {(k % 64) * 64 + 72}(%r14), %{G[(k + 3) % 8]}",
        f"        movq %rbx, {(k % 256) * 16 + 18432}(%r14)",
        f"        movq %rbp, {(k % 256) * 16 + 18440}(%r14)"],
    "3 r64 loads + 1 r64 store": lambda k: [
        *[f"        movq {(k % 64) * 64 + 64 + 8 * j}(%r14), %{G[(k + 3 * j) % 8]}" for j in range(3)],
        f"        movq %rbx, {(k % 512) * 8 + 18432}(%r14)"],
    "4 r64 loads + 2 r64 stores": lambda k: [
        *[f"        movq {(k % 64) * 64 + 64 + 8 * j}(%r14), %{G[(k + 2 * j) % 8]}" for j in range(4)],
        f"        movq %rbx, {(k % 256) * 16 + 18432}(%r14)",
        f"        movq %rbp, {(k % 256) * 16 + 18440}(%r14)"],
    # ---- FP pipes
    "vaddpd + vmulpd zmm": lambda k: [_op("vaddpd", k % 6), _op("vmulpd", 6 + k % 6)],
    "2 fma + 2 fadd zmm": lambda k: [_fma(k, 0), _fma(k, 1), _op("vaddpd", 16 + k % 8),
                                     _op("vaddpd", 24 + k % 8)],
    "2 fma + 2 fadd ymm": lambda k: [_fma(k, 0, "ymm"), _fma(k, 1, "ymm"),
                                     _op("vaddpd", 16 + k % 8, "ymm"), _op("vaddpd", 24 + k % 8, "ymm")],
    "2 fma + 2 fmul zmm": lambda k: [_fma(k, 0), _fma(k, 1), _op("vmulpd", 16 + k % 8),
                                     _op("vmulpd", 24 + k % 8)],
    "2 fma + 2 fadd + 2 vpaddq zmm": lambda k: [_fma(k, 0), _fma(k, 1), _op("vaddpd", 16 + k % 4),
                                                _op("vaddpd", 20 + k % 4), _op("vpaddq", 24 + k % 4),
                                                _op("vpaddq", 28 + k % 4)],
    "vshufpd + 2 fadd + 2 fmul zmm": lambda k: [
        f"        vshufpd $5, %zmm14, %zmm15, %zmm{16 + k % 8}", _op("vaddpd", k % 3),
        _op("vaddpd", 3 + k % 3), _op("vmulpd", 6 + k % 3), _op("vmulpd", 9 + k % 3)],
    **{f"{name} + 2 {m[1:4]} zmm": _with_two(ins, m)
       for name, ins in (
           ("vcvtdq2pd ymm->zmm", lambda k: f"        vcvtdq2pd %ymm14, %zmm{16 + k % 8}"),
           ("vpermpd imm", lambda k: f"        vpermpd $5, %zmm14, %zmm{16 + k % 8}"),
           ("vextractf64x4", lambda k: f"        vextractf64x4 $1, %zmm14, %ymm{16 + k % 8}"),
           ("vbroadcastsd xmm->zmm", lambda k: f"        vbroadcastsd %xmm14, %zmm{16 + k % 8}"),
           ("vmaxpd", lambda k: f"        vmaxpd %zmm14, %zmm15, %zmm{16 + k % 8}"),
           ("vcmppd ->k", lambda k: f"        vcmppd $1, %zmm14, %zmm15, %k{1 + k % 5}"),
           ("vcvtsi2sdl", lambda k: f"        vcvtsi2sdl %ebx, %xmm14, %xmm{16 + k % 8}"),
           ("vmovq r64->xmm", lambda k: f"        vmovq %rbx, %xmm{16 + k % 8}"),
           ("vmovq xmm->r64", lambda k: f"        vmovq %xmm14, %r{8 + k % 6}"))
       for m in ("vaddpd", "vmulpd")},
    "vcvtdq2pd ymm->zmm alone": lambda k: [f"        vcvtdq2pd %ymm14, %zmm{16 + k % 8}"],
    "vsqrtpd + vdivpd zmm": lambda k: [f"        vsqrtpd %zmm14, %zmm{16 + k % 8}",
                                       f"        vdivpd %zmm14, %zmm15, %zmm{k % 6}"],
    # ---- front end
    "nop": lambda k: ["        nop"],
    "2 fadd + 2 fmul + 2 add + 2 ymm loads": lambda k: [
        _op("vaddpd", k % 3, "ymm"), _op("vaddpd", 3 + k % 3, "ymm"),
        _op("vmulpd", 6 + k % 3, "ymm"), _op("vmulpd", 9 + k % 3, "ymm"),
        f"        addq %rbx, %{G[k % 4]}", f"        addq %rbp, %{G[4 + k % 4]}",
        f"        vmovupd {(k % 32) * 128 + 64}(%r14), %ymm{16 + k % 8}",
        f"        vmovupd {(k % 32) * 128 + 128}(%r14), %ymm{24 + k % 8}"],
    # ---- latency chains and forwarding
    "addsd xmm,xmm latency": lambda k: ["        addsd %xmm14, %xmm0"],
    "vaddsd latency": lambda k: ["        vaddsd %xmm14, %xmm0, %xmm0"],
    "lea 8(b,i,8) latency": lambda k: ["        leaq 8(%rcx,%rcx,8), %rcx"],
    "lea (b,i) latency": lambda k: ["        leaq (%rcx,%rcx), %rcx"],
    "lea (b,i) throughput": lambda k: [f"        leaq (%rbx,%rbp), %{G[k % 8]}"],
    "imulq imm,r64,r64 throughput": lambda k: [f"        imulq $3, %rbx, %{G[k % 8]}"],
    "shlx throughput": lambda k: [f"        shlx %rbx, %rbp, %{G[k % 8]}"],
    "vextractf64x4 + vinsertf64x4 chain": lambda k: ["        vextractf64x4 $1, %zmm0, %ymm1",
                                                     "        vinsertf64x4 $1, %ymm1, %zmm14, %zmm0"],
    "vinsertf64x4 latency": lambda k: ["        vinsertf64x4 $1, %ymm0, %zmm14, %zmm0"],
    "r64 store->load, same address": lambda k: ["        movq %rcx, 8192(%r14)",
                                                "        movq 8192(%r14), %rcx"],
    "r64 store->load, indexed address": lambda k: ["        movq %rcx, 8192(%r14,%rsi,8)",
                                                   "        movq 8192(%r14,%rsi,8), %rcx"],
    "vmovsd store->load": lambda k: ["        vmovsd %xmm0, 8192(%r14)", "        vmovsd 8192(%r14), %xmm0"],
    "vaddsd mem + vmovsd store, one address": lambda k: ["        vaddsd 8192(%r14), %xmm14, %xmm0",
                                                         "        vmovsd %xmm0, 8192(%r14)"],
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("only", nargs="*", help="substrings of case names")
    ap.add_argument("--cpu", type=int, default=None, help="CPU to pin to (default: the last one)")
    args = ap.parse_args()
    hz = calibrated_clock(args.cpu)
    print(f"core clock {hz / 1e9:.3f} GHz (calibrated)")
    for name, group in CASES.items():
        if args.only and not any(o in name for o in args.only):
            continue
        size = len(group(0))
        body: list[str] = []
        k = 0
        while len(body) + size <= 96:
            body += group(k)
            k += 1
        cy = measure_body(body, core_hz=hz, width="zmm", cpu=args.cpu)
        print(f"{name:48s} {cy:7.3f} cy/instr {cy * size:7.3f} cy/group of {size}", flush=True)


if __name__ == "__main__":
    main()
