"""Known register values at loop entry for the stand-alone line-split estimate
(``kerncraft-incore --register-offset REG=BYTES``; addresssplit.address_line_splits with
``register_values``).

Hand derivations, as in test_linesplit_asm.py: an access at base + index + d moving by
``advance`` bytes per iteration is at (values + d + k*advance) mod 64 in iteration k and
splits when that offset plus its width exceeds 64. A register with a given value
contributes it exactly (times its scale); the others keep the ``alignment`` assumption.
"""
from __future__ import annotations

import pytest

from kerncraft.cli import incore as cli
from kerncraft.incore import addresssplit
from kerncraft.incore.analysis import analyze_text
from kerncraft.incore.database import load_database
from kerncraft.incore.x86.parser import parse_x86
from kerncraft.incore.x86.semantics import dataflow

from test_linesplit_asm import loop   # the two-load zmm/ymm loop of the --alignment tests


def shares(text: str, values: dict, alignment: int = 64) -> list[float]:
    instructions = [ln.instruction for ln in parse_x86(text) if ln.instruction is not None]
    est = addresssplit.address_line_splits(instructions, [dataflow(i) for i in instructions],
                                 load_database("CSX").line_split, alignment,
                                 register_values=values)
    return [a.fraction for a in est.accesses]


def test_a_base_8_bytes_past_a_line_splits_every_zmm_access():
    """loop(0): loads at (%rax,%rcx) and (%rdx,%rcx), rcx += 64 (or the given advance).
    rax = 8: the first load is at 8 + 64k, 8 + 64 > 64 always; rdx stays 64-B aligned."""
    assert shares(loop(0), {"rax": 8}) == [1.0, 0.0]
    assert shares(loop(0), {}) == [0.0, 0.0]


def test_ymm_base_at_16_splits_every_second_iteration():
    """rdx = 16, 32 B per iteration: offsets 16, 48, 16, ...; 48 + 32 = 80 > 64 in one of
    two iterations. The rax access: 0, 32 -> never."""
    assert shares(loop(0, "ymm", 32), {"rdx": 16}) == [0.0, 0.5]


def test_the_index_register_value_moves_both_accesses():
    """rcx = 8 is added to both addresses (scale 1)."""
    assert shares(loop(0), {"rcx": 8}) == [1.0, 1.0]


def test_values_make_an_address_exact_even_with_unknown_alignment():
    """alignment unknown: an address whose registers all have values is exact (rax = 8,
    rcx = 0: always split); the other (rdx unknown) gets the uniform share of 8-B
    elements, 7 of the 8 start offsets for a 64-B vector = 0.875."""
    assert shares(loop(0), {"rax": 8, "rcx": 0}, alignment=0) == [1.0, 0.875]


def test_register_spellings_and_modulo():
    """%eax and RAX name rax; 72 is 8 modulo 64."""
    assert shares(loop(0), {"%eax": 72}) == shares(loop(0), {"RAX": 8}) == [1.0, 0.0]


@pytest.mark.parametrize("name,message", [("xmm1", "not a general-purpose"),
                                          ("foo", "unknown register")])
def test_bad_register_names(name, message):
    with pytest.raises(ValueError, match=message):
        shares(loop(0), {name: 8})


def test_analysis_throughput_and_assumption_text():
    """CSX: two zmm loads on ports 2/3 = 1.0 cy; one split adds a load-data cycle on
    {2D, 3D} (+0.5 each) -> 1.5 cy; the assumption names the given value."""
    plain = analyze_text(loop(0), "CSX", split_alignment=64)
    given = analyze_text(loop(0), "CSX", split_alignment=64, register_values={"rax": 8})
    assert plain.throughput == pytest.approx(1.0)
    assert given.throughput == pytest.approx(1.5)
    assert "given: rax = 8 mod 64" in given.line_splits.assumption


def test_cli_register_offset(capsys, tmp_path):
    path = tmp_path / "l.s"
    path.write_text(loop(0))
    assert cli.main([str(path), "--arch", "CSX", "--register-offset", "rax=8"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "(given: rax = 8 mod 64)" in out
    assert "prediction 1.50 cy" in out
    with pytest.raises(SystemExit) as exc:
        cli.main([str(path), "--arch", "CSX", "--register-offset", "xmm1=3"])
    assert exc.value.code == 2
    assert "not a general-purpose" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main([str(path), "--arch", "CSX", "--register-offset", "rax"])
    assert "expected REG=BYTES" in capsys.readouterr().err


# ------------------------------------------------------------------ 4K aliasing

ALIAS = """.L3:
\tvmovupd\t-8(%rsi,%rax), %zmm0
\tvmovupd\t%zmm0, (%rdi,%rax)
\taddq\t$64, %rax
\tcmpq\t%rax, %rdx
\tjne\t.L3
"""


def alias_notes(text: str, addresses: dict) -> list[str]:
    res = analyze_text(text, "ZEN5", split_alignment=64, register_addresses=addresses)
    return [n for n in res.notes if n.startswith("4K aliasing")]


def test_load_overlapping_the_previous_store_modulo_4096():
    """rsi and rdi at the same page offset: the load of iteration k+1 reads bytes
    -8 + 64 = 56 .. 119 past the page offset of the store of iteration k (0 .. 63):
    overlap, one iteration apart. Different registers, so no memory dependency."""
    notes = alias_notes(ALIAS, {"rsi": 0x10000, "rdi": 0x25000, "rax": 0})
    assert len(notes) == 1
    assert "load of line 2" in notes[0] and "store of line 3 1 iteration earlier" in notes[0]


def test_shifted_by_one_element_no_overlap():
    """rsi 8 B further (the thesis' a + 1): the load of iteration k+1 starts at 64, right
    after the store of iteration k; the same iteration's store comes after the load."""
    assert alias_notes(ALIAS, {"rsi": 0x10008, "rdi": 0x25000, "rax": 0}) == []


def test_same_iteration_store_before_load():
    """Store first, then a load at the same page offset through another register: the
    load overlaps the store of its own iteration."""
    text = ALIAS.replace("\tvmovupd\t-8(%rsi,%rax), %zmm0\n", "").replace(
        "\taddq", "\tvmovupd\t(%rsi,%rax), %zmm1\n\taddq")
    notes = alias_notes(text, {"rsi": 0x10000, "rdi": 0x25000, "rax": 0})
    assert len(notes) == 1 and "in the same iteration" in notes[0]


def test_offsets_alone_do_not_claim_aliasing():
    """--register-offset values (modulo 64) say nothing about page offsets: no note, and
    an address with a register without a full value is not compared."""
    res = analyze_text(ALIAS, "ZEN5", split_alignment=64,
                       register_values={"rsi": 0, "rdi": 0, "rax": 0})
    assert not [n for n in res.notes if n.startswith("4K aliasing")]
    assert alias_notes(ALIAS, {"rsi": 0x10000, "rdi": 0x25000}) == []


def test_cli_register_value(capsys, tmp_path):
    path = tmp_path / "a.s"
    path.write_text(ALIAS)
    assert cli.main([str(path), "--arch", "ZEN5", "--register-value", "rsi=0x10000",
                     "--register-value", "rdi=0x25000", "--register-value", "rax=0"]) == 0
    text = capsys.readouterr().out
    notes = text[text.index("Note: 4K"):].split("\n\n")[0].splitlines()
    assert len(notes) > 1 and max(len(line) for line in notes) <= 100   # wrapped
    assert "4K aliasing: the load of line 2" in " ".join(text.split())
