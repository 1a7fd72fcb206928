"""Cache-line splits in the stand-alone analysis: the share derived from the addresses
of the assembly (kerncraft/incore/addresssplit.py: address_line_splits; kerncraft-incore
--alignment).

Hand derivations. The offset of an access in its 64-B line in iteration k is
(s + d + k*advance) mod 64, s the start allowed by the alignment (0 for 64-B alignment);
a w-byte access splits when offset + w > 64. CSX inherits SKX's ``line_split`` table:
a split load of any width costs one more load-data cycle on {2D, 3D}, i.e. +0.5 cy on
each; split stores are not charged.
"""
from __future__ import annotations

import json

import pytest

from kerncraft.cli import incore as cli
from kerncraft.incore import addresssplit
from kerncraft.incore import linesplit as ls
from kerncraft.incore.analysis import analyze_text
from kerncraft.incore.database import load_database
from kerncraft.incore.x86.parser import parse_x86
from kerncraft.incore.x86.semantics import dataflow

LOOP = """.L2:
\tvmovupd\t{d}(%rax,%rcx), %{r}0
\tvmovupd\t(%rdx,%rcx), %{r}1
\taddq\t${adv}, %rcx
\tcmpq\t%rcx, %rdi
\tjne\t.L2
"""


def loop(disp: int, reg: str = "zmm", advance: int = 64) -> str:
    return LOOP.format(d=disp, r=reg, adv=advance)


def estimate(text: str, alignment: int = 64, arch: str = "CSX") -> ls.LineSplitEstimate:
    instructions = [ln.instruction for ln in parse_x86(text) if ln.instruction is not None]
    return addresssplit.address_line_splits(instructions, [dataflow(i) for i in instructions],
                                  load_database(arch).line_split, alignment)


def shares(est: ls.LineSplitEstimate) -> list[float]:
    return [a.fraction for a in est.accesses]


# ------------------------------------------------------------------ shares

def test_zmm_at_8_always_splits_at_0_never():
    """64-B load at 8(%rax,%rcx), 64 B per iteration: offset 8 every time, 8 + 64 > 64;
    the load at (%rdx,%rcx) starts on the line: 0 + 64 = 64 does not cross."""
    est = estimate(loop(8))
    assert shares(est) == [1.0, 0.0]
    first = est.accesses[0]
    assert (first.line, first.kind, first.vector_bytes, first.offset, first.advance) == \
        (2, "load", 64, 8, 64)
    assert est.rows == (ls.LineSplitRow("load", 64, 2, 0.5, est.rows[0].cost),)
    assert est.per_port == pytest.approx({"2D": 0.5, "3D": 0.5})


def test_ymm_at_16_with_32_byte_advance_splits_every_second_iteration():
    """Offsets 16, 48, 16, 48, ...: 16 + 32 = 48 fits, 48 + 32 = 80 crosses -> 1/2."""
    assert shares(estimate(loop(16, "ymm", 32))) == [0.5, 0.0]


def test_advance_not_a_divisor_of_the_line_is_exact_over_the_period():
    """16-B loads at 0 moving 24 B per iteration: period 64/gcd(64, 24) = 8 iterations at
    offsets 0, 24, 48, 8, 32, 56, 16, 40; only 56 + 16 > 64 -> 1/8. The one at 40
    (offsets 40, 0, 24, 48, 8, 32, 56, 16) splits at 56 too -> 1/8."""
    assert shares(estimate(loop(40, "xmm", 24))) == [0.125, 0.125]


def test_negative_advance_and_displacement():
    """A loop counting down by 32 with a ymm load at -8: offsets 56, 24, 56, ...:
    56 + 32 > 64 -> 1/2; the one at 0: 0, 32, 0, ... -> never."""
    assert shares(estimate(loop(-8, "ymm", -32))) == [0.5, 0.0]


def test_smaller_alignment_spreads_the_starts():
    """16-B alignment: s in {0, 16, 32, 48}. zmm at 8: 8, 24, 40, 56 all cross -> 1;
    zmm at 0: only s = 0 fits -> 3/4."""
    assert shares(estimate(loop(8), alignment=16)) == [1.0, 0.75]


def test_unknown_alignment_uses_the_uniform_fallback():
    """--alignment none: starts uniform over the 8-B elements of vmovupd, as the ECM
    fallback (line_offsets.uniform_split_share): (64 - 8)/64 = 7/8 for zmm, (32 - 8)/64 = 3/8
    for ymm, whatever the displacement."""
    assert shares(estimate(loop(8), alignment=0)) == [0.875, 0.875]
    assert shares(estimate(loop(16, "ymm", 32), alignment=0)) == [0.375, 0.375]
    assert "alignment unknown" in estimate(loop(8), alignment=0).assumption


def test_address_not_followed_falls_back_to_uniform_starts():
    """The base register is loaded inside the loop: its value is not followed."""
    text = ".L2:\n\tmovq\t(%rsi), %rax\n\tvmovupd\t(%rax), %ymm0\n\taddq\t$8, %rsi\n" \
           "\tcmpq\t%rsi, %rdi\n\tjne\t.L2\n"
    est = estimate(text)
    assert shares(est) == [0.375] and est.accesses[0].advance is None
    assert "1 access(es) not followed" in est.assumption


def test_scalar_and_broadcast_accesses_are_not_vectors():
    text = ".L2:\n\tvmovsd\t8(%rax,%rcx), %xmm0\n\tvbroadcastsd\t8(%rax,%rcx), %ymm1\n" \
           "\tvaddpd\t8(%rax,%rcx){1to8}, %zmm2, %zmm2\n\taddq\t$8, %rcx\n\tjne\t.L2\n"
    assert estimate(text) is None


def test_stores_are_reported_but_not_charged_on_csx():
    text = ".L2:\n\tvmovupd\t%zmm0, 8(%rax,%rcx)\n\taddq\t$64, %rcx\n\tjne\t.L2\n"
    est = estimate(text)
    assert shares(est) == [1.0] and est.per_port == {}
    assert "no split cost in the CSX database for 64-B stores" in est.describe("CSX")


def test_bad_alignment_is_an_error():
    with pytest.raises(ValueError, match="power of two"):
        estimate(loop(8), alignment=48)


# ------------------------------------------------------------------ throughput

@pytest.mark.parametrize("text, alignment, tp", [
    # two zmm loads: 2 uops on {2D, 3D} = 1.0 cy each; ports 2/3 (AGU) 1.0; 4 fused
    # uops / 4 = 1.0 cy front end
    (loop(0), 64, 1.0),            # no split
    (loop(8), 64, 1.5),            # 1 split load x 1 cy over {2D, 3D}: 1.0 + 0.5
    (loop(16, "ymm", 32), 64, 1.25),   # 1/2 split load: 1.0 + 0.25
    (loop(8), 0, 1.875),           # 2 x 7/8 split loads: 1.0 + 0.875
    (loop(8), None, 1.0),          # no alignment given (the ECM pipeline's call)
])
def test_csx_throughput_with_splits(text, alignment, tp):
    result = analyze_text(text, "CSX", split_alignment=alignment)
    assert result.throughput == pytest.approx(tp)
    assert result.prediction == pytest.approx(tp)
    if tp > 1.0:
        assert result.port_totals["2D"] == pytest.approx(tp)
        assert set(result.bottleneck_ports) == {"2D", "3D"}
    assert (result.line_splits is None) == (alignment is None)


def test_ecm_default_is_unchanged():
    """analyze without split_alignment (what the ECM pipeline calls) keeps the plain
    port balance: the pipeline adds the kernel-derived splits itself."""
    plain = analyze_text(loop(8), "CSX")
    assert plain.line_splits is None and plain.throughput == pytest.approx(1.0)


# ------------------------------------------------------------------ command line

def test_cli_default_alignment_text_and_json(capsys, tmp_path):
    path = str(tmp_path / "l.s")
    (tmp_path / "l.s").write_text(loop(8))
    assert cli.main([path, "--arch", "CSX"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    out = " ".join(out.split())                   # the split lines are wrapped
    assert "Line splits (address registers and symbols 64-B aligned at loop entry" in out
    assert "line 2: 64-B load 8(%rax,%rcx) splits in 100 % of iterations " \
           "(offset 8 B, advance 64 B)" in out
    assert "+0.50 cy on 2D, +0.50 cy on 3D" in out
    assert "prediction 1.50 cy" in out
    assert cli.main([path, "--arch", "CSX", "--alignment", "none", "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["throughput"] == pytest.approx(1.875)
    splits = doc["line_splits"]
    assert splits["assumption"].startswith("alignment unknown")
    assert splits["extra_cycles_per_port"] == pytest.approx({"2D": 0.875, "3D": 0.875})
    assert [a["split_fraction"] for a in splits["per_access"]] == [0.875, 0.875]


def test_cli_rejects_a_bad_alignment(capsys, tmp_path):
    path = tmp_path / "l.s"
    path.write_text(loop(8))
    with pytest.raises(SystemExit) as exc:
        cli.main([str(path), "--arch", "CSX", "--alignment", "24"])
    assert exc.value.code == 2
    assert "power of two" in capsys.readouterr().err
