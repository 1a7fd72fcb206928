"""Loop bodies and the assembly harness of the instruction-form microbenchmarks
(:mod:`kerncraft.dbtools.microbench` builds, runs and times them): the latency
chain and the throughput rotation of one form, and the ``bench(iterations,
buffer)`` function around a body.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from kerncraft.errors import KerncraftError

__all__ = ["UNROLL", "HARNESS_C", "FormBenchmark", "generate", "loop_assembly", "line_dataflow"]

UNROLL = 96

#: Timing harness: ``./prog ITERATIONS REPETITIONS`` calls ``bench(ITERATIONS, buffer)``
#: REPETITIONS times and prints the minimum wall time of one call (seconds).
HARNESS_C = r"""
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
void bench(long iterations, void *buffer);
static double now(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC_RAW, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
int main(int argc, char **argv) {
    long iters = argc > 1 ? atol(argv[1]) : 1000;
    int reps = argc > 2 ? atoi(argv[2]) : 10;
    double *buf;
    if (posix_memalign((void **)&buf, 4096, 1 << 16) != 0) return 1;
    for (int i = 0; i < (1 << 16) / 8; ++i) buf[i] = 1.0;
    *(void **)buf = buf;                      /* pointer chase: buf[0] holds &buf[0] */
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        double t0 = now();
        bench(iters, buf);
        double t = now() - t0;
        if (t < best) best = t;
    }
    printf("KERNCRAFT_MIN_SECONDS %.9e\n", best);
    return 0;
}
"""

_PROLOGUE = """\
        .text
        .globl  bench
        .type   bench, @function
bench:
        pushq   %rbx
        pushq   %rbp
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15
        movq    %rdi, %r15
        movq    %rsi, %r14
        movq    %rsi, %rax
{init}
        .p2align 5
.Lbench_loop:
"""
_EPILOGUE = """\
        decq    %r15
        jnz     .Lbench_loop
        vzeroupper
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbp
        popq    %rbx
        ret
        .size   bench, .-bench
        .section .note.GNU-stack,"",@progbits
"""

#: One register of an operand class: a 64-bit GPR or mask name, or a vector number.
RegisterChoice = str | int

# Register pools (64-bit names; narrower views below). r14 = buffer, r15 = counter,
# rax = pointer-chase register, rdi/rsi are free after the prologue.
_GPR_DST = ("rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13")
_GPR_SRC = ("rbx", "rbp", "rsi", "rdi")
_GPR_NAMES = {
    "rax": ("eax", "ax", "al"), "rbx": ("ebx", "bx", "bl"), "rcx": ("ecx", "cx", "cl"),
    "rdx": ("edx", "dx", "dl"), "rsi": ("esi", "si", "sil"), "rdi": ("edi", "di", "dil"),
    "rbp": ("ebp", "bp", "bpl"),
    **{f"r{i}": (f"r{i}d", f"r{i}w", f"r{i}b") for i in range(8, 16)},
}
_VEC_DST = tuple(range(12))
_VEC_SRC = (14, 15, 13)
_K_DST = ("k1", "k2", "k3", "k4", "k5")
_K_SRC = ("k6", "k7")
_GPR_CLASSES = ("r64", "r32", "r16", "r8")
_VEC_CLASSES = ("xmm", "ymm", "zmm")
_SHIFTS = re.compile(r"^(sh[lr]|sa[lr]|ro[lr]|rc[lr])[bwlq]?$")
_REFUSED = re.compile(r"^(i?div[bwlq]?|j\w+|call\w*|ret\w*|jmp\w*|loop\w*|push\w*|pop\w*|"
                      r"leave\w*|enter\w*|syscall|cpuid|rdtscp?|hlt)$")


def _gpr(root: str, cls: str) -> str:
    if cls == "r64":
        return "%" + root
    return "%" + _GPR_NAMES[root][("r32", "r16", "r8").index(cls)]


def _reg(cls: str, number: RegisterChoice) -> str:
    if cls in _GPR_CLASSES:
        return _gpr(str(number), cls)
    if cls in _VEC_CLASSES:
        return f"%{cls}{number}"
    if cls == "k":
        return f"%{number}"
    raise KerncraftError(f"cannot instantiate operand class {cls!r}")


@dataclass(frozen=True)
class FormBenchmark:
    """Generated loop bodies for one form (``None``: not measurable, see ``notes``)."""

    form: str
    mnemonic: str
    classes: tuple[str, ...]
    latency_body: tuple[str, ...] | None
    throughput_body: tuple[str, ...] | None
    latency_kind: str = "register"          # 'register' | 'load' (pointer chase) | 'memory'
    vector_width: str | None = None         # widest vector class used (init / AVX-512 check)
    notes: tuple[str, ...] = ()


def _parse_form(form: str) -> tuple[str, tuple[str, ...]]:
    text = " ".join(form.strip().split())
    if "%" in text or "$" in text or "(" in text:
        raise KerncraftError(f"give an instruction form with operand classes "
                             f"(e.g. 'addq r64,r64', 'vaddpd mem,ymm,ymm'), not {form!r}")
    mnemonic, _, ops = text.partition(" ")
    classes = tuple(o.strip() for o in ops.split(",") if o.strip())
    known = set(_GPR_CLASSES) | set(_VEC_CLASSES) | {"k", "mem", "imm", "lbl"}
    bad = [c for c in classes if c not in known]
    if not mnemonic or bad:
        raise KerncraftError(f"cannot read instruction form {form!r}"
                             + (f": unknown operand classes {bad}" if bad else ""))
    return mnemonic.lower(), classes


def _instance(mnemonic: str, classes: Sequence[str], regs: Sequence[RegisterChoice | None],
              mem: str, shift_count_cl: bool) -> str:
    ops = []
    for k, (cls, reg) in enumerate(zip(classes, regs)):
        if cls == "imm":
            ops.append("$1")
        elif cls == "mem":
            ops.append(mem)
        elif k == 0 and cls == "r8" and shift_count_cl:
            ops.append("%cl")
        else:
            ops.append(_reg(cls, reg))
    return f"        {mnemonic} {', '.join(ops)}".rstrip()


def line_dataflow(line: str):
    """(instruction, data flow) of one line of x86 assembly."""
    from kerncraft.incore.x86.parser import parse_x86
    from kerncraft.incore.x86.semantics import dataflow
    ins = next(ln.instruction for ln in parse_x86(line) if ln.instruction is not None)
    return ins, dataflow(ins)


def _reads_memory_destination(line: str) -> bool:
    _, flow = line_dataflow(line)
    return bool(flow.memory_reads) and bool(flow.memory_writes)


def _root(name: str) -> str:
    from kerncraft.incore.registers import alias_root
    return alias_root(name.lstrip("%"))


def generate(form: str) -> FormBenchmark:
    """Latency and throughput loop bodies for an x86 instruction form (AT&T classes)."""
    mnemonic, classes = _parse_form(form)
    if _REFUSED.match(mnemonic):
        raise KerncraftError(f"'{mnemonic}' cannot be benchmarked in a straight-line loop "
                             "(branches, stack operations and divisions with implicit "
                             "rdx:rax operands are not supported)")
    if classes.count("mem") > 1 or "lbl" in classes:
        raise KerncraftError(f"form {form!r}: two memory operands or a label are not supported")
    shift_cl = bool(_SHIFTS.match(mnemonic)) and len(classes) == 2 and classes[0] == "r8"
    vec = [c for c in classes if c in _VEC_CLASSES]
    width = max(vec, key=_VEC_CLASSES.index) if vec else None
    notes: list[str] = []
    n = len(classes)
    dst = n - 1 if n and classes[-1] not in ("mem", "imm") else None

    # ---- throughput: rotating destinations, fixed sources
    def src_reg(cls: str, k: int) -> RegisterChoice | None:
        if cls in _GPR_CLASSES:
            return _GPR_SRC[k % len(_GPR_SRC)]
        if cls in _VEC_CLASSES:
            return _VEC_SRC[k % len(_VEC_SRC)]
        if cls == "k":
            return _K_SRC[k % len(_K_SRC)]
        return None

    def dst_pool(cls: str) -> Sequence[RegisterChoice]:
        return {"k": _K_DST}.get(cls, _GPR_DST if cls in _GPR_CLASSES else _VEC_DST)

    tp_body = []
    for i in range(UNROLL):
        regs: list[RegisterChoice | None] = []
        for k, cls in enumerate(classes):
            if k == dst:
                pool = dst_pool(cls)
                regs.append(pool[i % len(pool)])
            else:
                regs.append(src_reg(cls, k))
        store = classes and classes[-1] == "mem"
        # loads: one per cache line; stores: 32 B apart, two per line, as in streaming
        # code (cores that commit two stores per cycle only do so within one line); a
        # 64-byte store fills its line (and vmovapd zmm faults unless 64-byte aligned)
        stride = 64 if "zmm" in classes else 32
        mem = f"{(i % 64) * stride + 8192}(%r14)" if store else f"{(i % 64) * 64 + 64}(%r14)"
        tp_body.append(_instance(mnemonic, classes, regs, mem, shift_cl))
    try:
        line_dataflow(tp_body[0])
    except Exception as exc:  # noqa: BLE001 - the parser's message is the useful part
        raise KerncraftError(f"cannot build an instance of {form!r}: {exc}") from None

    # ---- latency: a chain through the destination register
    lat_body: list[str] | None = None
    kind = "register"
    if classes and classes[0] == "mem" and n == 2 and classes[1] == "r64" \
            and mnemonic in ("mov", "movq"):
        lat_body = ["        movq (%rax), %rax"] * UNROLL
        kind = "load"
        notes.append("latency: pointer chase movq (%rax),%rax = L1 load-to-use latency")
    elif classes and classes[-1] == "mem" and n >= 2 and _reads_memory_destination(
            _instance(mnemonic, classes, [src_reg(c, k) for k, c in enumerate(classes)],
                      "64(%r14)", shift_cl)):
        regs = [src_reg(c, k) for k, c in enumerate(classes)]
        lat_body = [_instance(mnemonic, classes, regs, "64(%r14)", shift_cl)] * UNROLL
        kind = "memory"
        notes.append("latency: read-modify-write chain through one address "
                     "(store-to-load forwarding + the operation)")
    elif dst is None:
        notes.append("latency: no register destination to chain through")
    else:
        cls = classes[dst]
        chain = dst_pool(cls)[0]
        regs = [chain if k == dst else src_reg(c, k) for k, c in enumerate(classes)]
        line = _instance(mnemonic, classes, regs, "64(%r14)", shift_cl)
        ins, flow = line_dataflow(line)
        droot = _root(_reg(cls, chain))
        if droot not in flow.sources:
            same = [k for k, c in enumerate(classes) if k != dst and c == cls]
            if not same and cls in _VEC_CLASSES:   # xmm <-> ymm <-> zmm: one register file
                same = [k for k, c in enumerate(classes) if k != dst and c in _VEC_CLASSES]
            if same:
                regs[same[-1]] = chain
                line = _instance(mnemonic, classes, regs, "64(%r14)", shift_cl)
                ins, flow = line_dataflow(line)
        if droot in flow.sources and not flow.breaks_dependency:
            lat_body = [line] * UNROLL
            if "mem" in classes:
                notes.append("latency: through the register operand (the load is off the chain)")
        else:
            notes.append("latency: the destination cannot feed a source of this form")
    return FormBenchmark(form=" ".join(form.split()), mnemonic=mnemonic, classes=classes,
                         latency_body=tuple(lat_body) if lat_body else None,
                         throughput_body=tuple(tp_body), latency_kind=kind,
                         vector_width=width, notes=tuple(notes))


def _init(width: str | None) -> str:
    lines = [f"        movq    $1, %{r}" for r in _GPR_DST + ("rbx", "rbp", "rsi", "rdi")]
    if width is not None:
        w = "zmm" if width == "zmm" else "ymm"
        lines += [f"        vbroadcastsd 8(%r14), %{w}{i}" for i in range(16)]
        if width == "zmm":
            lines += ["        kxnorw  %k0, %k0, %k" + str(i) for i in range(1, 8)]
    return "\n".join(lines)


def loop_assembly(body: Sequence[str], width: str | None = None) -> str:
    """A complete ``bench(long iterations, void *buffer)`` function around ``body``."""
    return _PROLOGUE.format(init=_init(width)) + "\n".join(body) + "\n" + _EPILOGUE
