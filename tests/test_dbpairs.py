"""``kerncraft-incore bench ARCH --kernel-pairs``: latencies *between* forms (issue 11,
item 5). Which pairs a loop passes registers between, the two-line chains, and when a
measured period differs from the database's."""
from __future__ import annotations

import pytest

from kerncraft.dbtools import pair_check as dbpairs
from kerncraft.errors import KerncraftError
from kerncraft.incore.analysis import load_model
from kerncraft.incore.x86.parser import parse_x86

# gcc's kahan-dot loop (ZEN5, -O3): y = a*b - c; t = s + y; c = (t - s) - y; s = t
KAHAN = """\
        vmovsd  (%rax), %xmm1
        vfmsub231sd (%rdx), %xmm1, %xmm2
        vaddsd  %xmm2, %xmm0, %xmm3
        vsubsd  %xmm0, %xmm3, %xmm0
        vsubsd  %xmm2, %xmm0, %xmm2
        addq    $8, %rax
        cmpq    %rax, %rcx
        jne     .L3
"""


def test_dependent_pairs_by_hand():
    """Register edges of the loop above, read off by hand (x = xmm):
    load x1 -> fmsub; fmsub x2 -> vaddsd and -> second vsubsd; vaddsd x3 -> first vsubsd;
    first vsubsd x0 -> second vsubsd and (next iteration) -> vaddsd; second vsubsd x2 ->
    fmsub (next iteration); addq rax -> cmpq. The two vsubsd share a form: left to
    --kernel-forms. Address registers (rax, rdx in the memory operands) are no data."""
    ins = [ln.instruction for ln in parse_x86(KAHAN) if ln.instruction]
    fms, add, sub = "vfmsub231sd mem,xmm,xmm", "vaddsd xmm,xmm,xmm", "vsubsd xmm,xmm,xmm"
    assert set(dbpairs.dependent_pairs(ins)) == {
        ("vmovsd mem,xmm", fms), (fms, add), (fms, sub), (add, sub), (sub, add),
        (sub, fms), ("addq imm,r64", "cmpq r64,r64")}


def test_pair_chain_lines():
    lines, width = dbpairs.pair_chain("vaddsd xmm,xmm,xmm", "vmulpd mem,zmm,zmm")
    assert lines == ["        vaddsd %xmm14, %xmm0, %xmm0", "        vmulpd 64(%r14), %zmm0, %zmm0"]
    assert width == "zmm"
    with pytest.raises(KerncraftError, match="no register latency chain"):
        dbpairs.pair_chain("vmovupd mem,zmm", "vaddpd zmm,zmm,zmm")
    with pytest.raises(KerncraftError, match="different register files"):
        dbpairs.pair_chain("addq r64,r64", "vaddsd xmm,xmm,xmm")


def test_check_pairs_by_hand():
    """ZEN5: FADD -> FMUL 3 cy (outside the FADD group) + FMUL -> FADD 3 = 6 cy per
    period; FADD -> FADD 2 + 2 = 4. A measured 5.0 for the first (what the database
    said before the forwarding group) is 1 cy off: > 0.5 cy and > 10 %: differs;
    4.1 for the second is within both."""
    model = load_model("ZEN5")
    pairs = {("vaddsd xmm,xmm,xmm", "vmulsd xmm,xmm,xmm"): "a.c -O3",
             ("vaddsd xmm,xmm,xmm", "vsubsd xmm,xmm,xmm"): "b.c -O3",
             ("vmovupd mem,zmm", "vaddpd zmm,zmm,zmm"): "c.c -O3"}
    fake = {"vmulsd": 5.0, "vsubsd": 4.1}

    def measure(lines, width):
        return fake[lines[1].split()[0]]
    check = dbpairs.check_pairs(model, pairs, core_hz=4.3e9, measure=measure)
    got = {(p.producer, p.consumer): (p.db, p.differs, bool(p.skipped)) for p in check.pairs}
    assert got == {("vaddsd xmm,xmm,xmm", "vmulsd xmm,xmm,xmm"): (6.0, True, False),
                   ("vaddsd xmm,xmm,xmm", "vsubsd xmm,xmm,xmm"): (4.0, False, False),
                   ("vmovupd mem,zmm", "vaddpd zmm,zmm,zmm"): (None, False, True)}
    text = dbpairs.format_pairs_check(check)
    assert "1 of 2 measured pairs differ (1 not measurable)" in text


def test_kernel_pairs_of_zen5():
    pairs = dbpairs.kernel_pairs(load_model("ZEN5"), "ZEN5")
    # kahan-dot's FMA -> FADD edge and the triad's load -> FMA edge are among them
    assert ("vfmsub231sd mem,xmm,xmm", "vaddsd xmm,xmm,xmm") in pairs
    assert all(".c -O3" in where for where in pairs.values())


def test_kernel_pairs_refuses_other_isas(capsys):
    from kerncraft.cli.incore import main
    with pytest.raises(SystemExit) as info:
        main(["bench", "TX2", "--kernel-pairs"])
    assert info.value.code == 2
    assert "not an x86 database" in capsys.readouterr().err
