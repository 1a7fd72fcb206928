"""The golden ECM/Roofline stencil cases (2d-5pt, 3d-7pt on CSX) and the list of all
cases for tests/test_ecm_golden.py. Inputs, conventions and the streaming cases:
tests/support/ecm_golden_cases.py."""
from __future__ import annotations

from support.ecm_golden_cases import COPY, DAXPY, TRIAD, Case, _COPY_MEM, copy_sat_cycles, ports

__all__ = ["CASES", "IDS", "S2D", "S2D_ROWS_IN_L1", "S3D", "_S2D5_T_MEM"]

# =========================================================================== 2d-5pt
# kernels/2d-5pt.c: b[j][i] = (a[j][i-1] + a[j][i+1] + a[j-1][i] + a[j+1][i]) * s,
# 4 FLOP/It (3 add + 1 mul), i = 1..N-2, j = 1..M-2.
#
# (1) gcc 12 loop (.L5, 4 It per asm iteration) - the same for every N, M (run-time
#     constants):
#       vmovupd (%r10,%rax), %ymm4               load
#       vaddpd (%r11,%rax), %ymm4, %ymm0         load + add {0,1}
#       vaddpd (%r9,%rax), %ymm0, %ymm0          load + add
#       vaddpd (%r8,%rax), %ymm0, %ymm0          load + add
#       vmulpd %ymm1, %ymm0, %ymm0               mul {0,1}
#       vmovupd %ymm0, (%rcx,%rax)               store (indexed)
#       addq $32, %rax ; cmpq %rax, %r14 ; jne .L5
#     {2,3}: 4 load AGU + 1 store address = 5 -> 2.5 each (maximum).
#     Next level 2.0: {2D,3D} 4 loads -> 2.0; {0,1}: 3 add + 1 mul = 4 -> 2.0
#     ({0,1,5,6} as a whole: 4 + 2 + 1 = 7 / 4 = 1.75 < 2, so 0 and 1 stay FP only).
#     Then {5,6}: add, cmp, jne = 3 uops, jne fixed on 6 -> 1.5 each. {4}: 1.0.
#     Line splits (kerncraft/incore/linesplit.py; rows of 8000 B start on a line, the
#     32-B vectors at i = 1, 5, ...): a[j][i-1] at byte 0, 32 (no split), a[j][i+1] at
#     16, 48 and a[j+-1][i] at 8, 40 (every second splits): 3/8 of the 4 loads = 1.5
#     split loads per asm iteration, each one more cycle on {2D,3D} (SKX.yml
#     line_split) -> 2D, 3D 2.0 + 0.75 = 2.75 each. (b[j][i] splits every second
#     store too; SKX.yml has no store cost.) The same 3/8 for N = 500: rows of 4000 B
#     start alternately at 0 and 32 mod 64, which shifts every pattern by half a line.
#     T_OL = 2.5 * 2 = 5.0; T_nOL = 2.75 * 2 = 5.5; LCD 2.0; front end 8 fused uops
#     (load, 3 add+load, mul, store, add, cmp+jne) -> 2.0 * 2 = 4.0.
#     Critical path: 7 (load) + 3 * 4 (dependent adds) + 4 (mul) = 23 per asm iteration.
# (2) Layer conditions (footprints, docs/layer-conditions.md section 2): the group a has
#     members a[j+1][i] (lead), a[j][i+1], a[j][i-1], a[j-1][i] with gaps (1,-1) =
#     N-3 It, (0,2) = 2 It, (1,-1) = N-3 It; b is one member. Rate 8 B/It.
#     condition 1 (window 2 It): a 8*(2*(1+2) + 2) + b 8*2 = 64 + 16 = 80 B;
#     condition 2 (window N-3 It, "three rows"): a 8*((N-3) + 2(N-3) + 2) + b 8*(N-3)
#                                                = 32 N - 80 B;
#     condition 3: the whole sweep, about 2 arrays * 8 B * M * N.
# --- N = M = 1000: 32*1000 - 80 = 31920 B = 31.17 KiB > 16 KiB usable L1 (but < 32 KiB:
#     the LC note says an ideal LRU L1 might still keep it), <= 512 KiB L2 and 7.5 MiB L3;
#     whole sweep 16 MB > 7.5 MiB. L1: condition 1 (only a[j][i-1] hits), L2 and L3:
#     condition 2.
#     L1-L2: a[j+1][i], a[j][i+1], a[j-1][i] + WA b = 4 loads, b = 1 store -> 5.0 cy.
#     L2-L3: L2 misses a[j+1][i] and WA b, both from memory (L3 keeps nothing more than
#            L2); 2 victims (a clean, b dirty) -> max(0, 2) * 4 = 8.0 cy.
#     L3-MEM: 2 loads + 1 store = 192 B, saturated copy bandwidth (as for copy) ->
#            8.7575 cy.
#     ECM: T_L1 = max(5, 5.5) = 5.5; T_L2 = 5.5+5 = 10.5; T_L3 = 5.5+5+8 = 18.5;
#     T_MEM = 18.5 + 8.7575 = 27.2575. n_s = ceil(27.2575 / 8.7575 = 3.1125) = 4.
#     Scaling: 1: 27.258 core; 2: 13.629 core; 4: max(6.814, 8.7575) memory;
#     5, 10: 8.7575 memory; 20: 4.381 memory.
#     Units: 32 FLOP per CL: T_L1 -> 32 * 2.5e9 / 5.5 = 14.55 GFLOP/s; T_MEM -> 2.935
#     GFLOP/s.
#     Roofline (copy benchmark): L1 5 accesses * 8 B * 8 = 320 B at 279.30 GB/s ->
#     2.864 cy; L2 320 B at 103.365 -> 7.740; L3 128 B at 35.445 -> 9.028; MEM 192 B at
#     21.84 -> 21.978; compute 32 / 32 = 1.0. Bottleneck MEM, AI 32/192 = 0.1667,
#     32 * 2.5e9 / 21.978 = 3.640 GFLOP/s; RooflineASM: in-core 5.5 -> MEM, 3.640 GFLOP/s.
_S2D_T_MEM = 5.5 + 5.0 + 8.0 + copy_sat_cycles(192)
_PORTS_2D5PT = ports(p0=2.0, p1=2.0, p2=2.5, p3=2.5, p2D=2.75, p3D=2.75, p4=1.0, p5=1.5,
                     p6=1.5)
S2D = Case(
    name="2d-5pt", kernel="2d-5pt.c", defines={"N": 1000, "M": 1000}, flops_per_it=4,
    ports_per_asm_it=_PORTS_2D5PT,
    it_per_asm_it=4, lcd_per_asm_it=1.0, frontend_per_asm_it=8 / 4,
    critical_path_per_asm_it=7.0 + 3 * 4.0 + 4.0, t_ol_source="port throughput",
    links=((4, 1), (0, 2), (2, 1)), t_l3mem=_COPY_MEM,
    predictions=(5.5, 5.5 + 5.0, 5.5 + 5.0 + 8.0, _S2D_T_MEM),
    saturated=_COPY_MEM, n_s=4,
    scaling={1: (_S2D_T_MEM, False), 2: (_S2D_T_MEM / 2, False),
             4: (_COPY_MEM, True), 5: (_COPY_MEM, True), 10: (_COPY_MEM, True),
             20: (copy_sat_cycles(192, 2), True)},
    lc_notes=("L1: layer condition 1 of 3 holds (reuse window i+2 = 2 it, footprint 80 B",
              "L2: layer condition 2 of 3 holds (reuse window j+1 i-1 = N - 3 it, "
              "footprint 31.17 kB",
              "L3: layer condition 2 of 3 holds"),
    bench="copy",
    roofline_bytes={"L1": 5 * 8 * 8, "L2": 5 * 64, "L3": 2 * 64, "MEM": 3 * 64},
    roofline_bandwidth=COPY.roofline_bandwidth,
    roofline_bottleneck="MEM", roofline_asm_bottleneck="MEM",
    cli=("-D", "N", "1000", "-D", "M", "1000"),
)

# --- N = 500, M = 10000: three rows fit L1: 32*500 - 80 = 15920 B = 15.55 KiB <= 16 KiB
#     (97 % of it: the LC "near threshold" note); the whole sweep (75.98 MiB) does not
#     fit L3 -> data in memory. L1, L2, L3: condition 2.
#     L1-L2: a[j+1][i] + WA b = 2 loads, b = 1 store -> 3.0 cy.
#     L2-L3 and L3-MEM as for N = 1000: 8.0 cy and 192 B -> 8.7575 cy.
#     ECM (T_nOL 5.5 with the split loads, as for N = 1000): T_L1 = 5.5; T_L2 = 5.5+3 =
#     8.5; T_L3 = 5.5+3+8 = 16.5; T_MEM = 16.5 + 8.7575 = 25.2575;
#     n_s = ceil(25.2575 / 8.7575 = 2.884) = 3.
#     Scaling: 1: 25.258 core; 2: 12.629 core; 4, 5, 10: 8.7575 memory; 20: 4.381.
#     Roofline: L2 now 3 CL = 192 B -> 192 * 2.5 / 103.365 = 4.644 cy; the rest as for
#     N = 1000 -> bottleneck MEM, 3.640 GFLOP/s.
_S2D5_T_MEM = 5.5 + 3.0 + 8.0 + copy_sat_cycles(192)
S2D_ROWS_IN_L1 = Case(
    name="2d-5pt-N500", kernel="2d-5pt.c", defines={"N": 500, "M": 10000}, flops_per_it=4,
    ports_per_asm_it=_PORTS_2D5PT,
    it_per_asm_it=4, lcd_per_asm_it=1.0, frontend_per_asm_it=8 / 4,
    critical_path_per_asm_it=7.0 + 3 * 4.0 + 4.0, t_ol_source="port throughput",
    links=((2, 1), (0, 2), (2, 1)), t_l3mem=_COPY_MEM,
    predictions=(5.5, 5.5 + 3.0, 5.5 + 3.0 + 8.0, _S2D5_T_MEM),
    saturated=_COPY_MEM, n_s=3,
    scaling={1: (_S2D5_T_MEM, False), 2: (_S2D5_T_MEM / 2, False),
             4: (_COPY_MEM, True), 5: (_COPY_MEM, True), 10: (_COPY_MEM, True),
             20: (copy_sat_cycles(192, 2), True)},
    lc_notes=("L1: layer condition 2 of 3 holds (reuse window j+1 i-1 = N - 3 it, "
              "footprint 15.55 kB",
              "L2: layer condition 2 of 3 holds", "L3: layer condition 2 of 3 holds",
              "next condition needs 75.98 MB"),
    bench="copy",
    roofline_bytes={"L1": 5 * 8 * 8, "L2": 3 * 64, "L3": 2 * 64, "MEM": 3 * 64},
    roofline_bandwidth=COPY.roofline_bandwidth,
    roofline_bottleneck="MEM", roofline_asm_bottleneck="MEM",
    cli=("-D", "N", "500", "-D", "M", "10000"),
)

# =========================================================================== 3d-7pt
# kernels/3d-7pt.c, N = M = L = 200:
# b[k][j][i] = c0 * a[k][j][i] + c1 * (sum of the six face neighbours), 8 FLOP/It
# (5 + 1 add, 2 mul). Two arrays of 64 MB: in memory.
#
# (1) gcc 12 loop (.L5, 4 It per asm iteration):
#       vmovupd (%r9,%rax), %ymm7                       load
#       5 x vaddpd (mem), %ymm, %ymm0                   load + add {0,1}
#       vmulpd %ymm1, %ymm0, %ymm0                      mul {0,1}
#       vfmadd231pd (%r15,%rax), %ymm2, %ymm0           load + FMA {0,1}
#       vmovupd %ymm0, (%rdx,%rax)                      store (indexed)
#       addq $32, %rax                                  {0,1,5,6}
#       cmpq %rax, 160(%rsp)                            load (the loop bound lives on
#                                                       the stack) + {0,1,5,6}
#       jne .L5                                         {6}
#     Loads: 1 + 5 + 1 + 1 (cmpq) = 8; stores 1.
#     {2,3}: 8 + 1 = 9 AGU uops -> 4.5 each (maximum). {2D,3D}: 8 -> 4.0 each.
#     {0,1}: 5 add + 1 mul + 1 FMA = 7 -> 3.5 ({0,1,5,6}: 10/4 = 2.5 < 3.5).
#     {5,6}: add, cmp, jne -> 1.5 each. {4}: 1.0.
#     Line splits (rows of 1600 B and planes start on a line; 32-B vectors from i = 1):
#     a[k][j][i-1] at 0, 32 never splits; a[k][j][i], a[k][j][i+1] (8 resp. 16 B in)
#     and the four neighbours in j and k (8 B in) split every second vector: 3/7 of the
#     7 vector loads = 3 split loads per asm iteration (the cmpq stack load is no vector)
#     -> 2D, 3D 4.0 + 1.5 = 5.5 each (SKX.yml line_split: one more load-data cycle).
#     T_OL = 4.5 * 2 = 9.0; T_nOL = 5.5 * 2 = 11.0 (the stack load of cmpq counts);
#     LCD 2.0; front end: load, 5 add+load, mul, FMA+load, store, add, cmp(mem)+jne =
#     11 fused uops -> 2.75 * 2 = 5.5. Critical path 7 + 5*4 + 4 (mul) + 4 (FMA) = 35.
# (2) Layer conditions: group a with 7 members, lead a[k+1][j][i]; gaps (1,-1,0) =
#     (M-3)(N-2) It (twice), (0,1,-1) = N-3 It (twice), (0,0,1) = 1 It (twice).
#     rows window (0,1,-1): a 8*((N-3)*(1+2) + 2(N-3) + 2) + b 8*(N-3) = 48 N - 128 B
#       = 9472 B = 9.25 KiB at N = 200: fits L1 (16 KiB);
#     planes window (1,-1,0): a 8*(3(M-3)(N-2) + 2(N-3) + 2) + b 8*(M-3)(N-2)
#       = 32 MN - 64 M - 80 N + 160 = 1251360 B = 1.19 MiB: > 512 KiB L2, <= 7.5 MiB L3;
#     whole sweep 119.04 MiB: fits nowhere.
#     -> L1, L2: condition 2 of 4 (rows); L3: condition 3 of 4 (planes).
#     L1-L2: a[k+1][j][i], a[k][j+1][i], a[k-1][j][i] + WA b = 4 loads + 1 store -> 5.0 cy.
#     L2-L3: L2 misses the same 4 lines; a[k][j+1][i] and a[k-1][j][i] are still in L3
#            (planes condition) -> 2 loads from L3; a[k+1][j][i] and WA b from memory;
#            every one of the 4 lines filled into L2 evicts one line to L3 -> 4 stores;
#            full duplex max(2, 4) * 64 / 16 = 16.0 cy.
#     L3-MEM: a[k+1][j][i] + WA b = 2 loads, b = 1 store = 192 B at the saturated copy
#            bandwidth -> 8.7575 cy.
# (3) T_L1 = max(9, 11) = 11; T_L2 = 11+5 = 16; T_L3 = 11+5+16 = 32;
#     T_MEM = 32 + 8.7575 = 40.7575; n_s = ceil(40.7575 / 8.7575 = 4.654) = 5.
#     Scaling: 1: 40.758 core; 2: 20.379 core; 4: max(10.189, 8.7575) core;
#     5: max(8.1515, 8.7575) memory; 10: 8.7575; 20: 4.381.
# (4) 64 FLOP per CL: T_L1 -> 64 * 2.5e9 / 11 = 14.55 GFLOP/s; T_MEM -> 3.926 GFLOP/s.
# (5) Roofline (copy): L1 8 accesses * 8 B * 8 = 512 B at 279.30 -> 4.583 cy; L2 5 CL =
#     320 B at 103.365 -> 7.740; L3 2 + 4 = 6 CL = 384 B (loads and victims on the
#     full-duplex L2-L3 link) at 23.63 * 2 = 47.26 GB/s (the copy benchmark in L3 moved
#     b + WA a in and both lines back as victims: 32 B per 16 nominal) -> 20.313;
#     MEM 192 B -> 21.978; compute 64 / 32 = 2.0. Bottleneck MEM, AI 64/192 = 0.3333,
#     64 * 2.5e9 / 21.978 = 7.280 GFLOP/s. RooflineASM: in-core 11.0 < 21.978 -> MEM.
_S3D_T_MEM = 11.0 + 5.0 + 16.0 + copy_sat_cycles(192)
S3D = Case(
    name="3d-7pt", kernel="3d-7pt.c", defines={"N": 200, "M": 200, "L": 200},
    flops_per_it=8,
    ports_per_asm_it=ports(p0=3.5, p1=3.5, p2=4.5, p3=4.5, p2D=5.5, p3D=5.5, p4=1.0, p5=1.5,
                           p6=1.5),
    it_per_asm_it=4, lcd_per_asm_it=1.0, frontend_per_asm_it=11 / 4,
    critical_path_per_asm_it=7.0 + 5 * 4.0 + 4.0 + 4.0, t_ol_source="port throughput",
    links=((4, 1), (2, 4), (2, 1)), t_l3mem=_COPY_MEM,
    predictions=(11.0, 11.0 + 5.0, 11.0 + 5.0 + 16.0, _S3D_T_MEM),
    saturated=_COPY_MEM, n_s=5,
    scaling={1: (_S3D_T_MEM, False), 2: (_S3D_T_MEM / 2, False),
             4: (_S3D_T_MEM / 4, False), 5: (_COPY_MEM, True), 10: (_COPY_MEM, True),
             20: (copy_sat_cycles(192, 2), True)},
    lc_notes=("L1: layer condition 2 of 4 holds (reuse window j+1 i-1 = N - 3 it, "
              "footprint 9.25 kB",
              "L2: layer condition 2 of 4 holds",
              "L3: layer condition 3 of 4 holds (reuse window k+1 j-1 = M*N - 2*M - 3*N + 6 "
              "it, footprint 1.19 MB",
              "next condition needs 119.04 MB"),
    bench="copy",
    roofline_bytes={"L1": 8 * 8 * 8, "L2": 5 * 64, "L3": 6 * 64, "MEM": 3 * 64},
    roofline_bandwidth=COPY.roofline_bandwidth,
    roofline_bottleneck="MEM", roofline_asm_bottleneck="MEM",
    cli=("-D", "N", "200", "-D", "M", "200", "-D", "L", "200"),
)

CASES = (COPY, TRIAD, DAXPY, S2D, S2D_ROWS_IN_L1, S3D)
IDS = [c.name for c in CASES]
