"""Inputs and hand derivations of the golden ECM/Roofline cases (tests/test_ecm_golden.py).

Common inputs (machine-files/CSX.yml, kerncraft/incore/databases/SKX.yml via CSX.yml)
------------------------------------------------------------------------------------
* clock 2.5 GHz; cache line 64 B; double -> 8 iterations per cache line (It/CL).
* Links: L1<-L2 64 B/cy half-duplex: T = (loads + stores) * 64 / 64;
  L2<->L3 16 B/cy full-duplex: T = max(loads, stores) * 64 / 16;
  L3<->MEM: measured bandwidth of the benchmark kernel whose stream mix matches,
  scaled by (nominal + write-only bytes) / nominal because the caches
  write-allocate; T = bytes * 2.5e9 / bandwidth.
* Benchmark choice (kerncraft/machine/bandwidth.py): kernel mix (read-only,
  write-only, read+write) arrays; smallest |write share difference|, with
  write share = (w + rw) / (r + w + 2 rw), then the stream count.
  copy / 2d-5pt / 3d-7pt: (1, 1, 0), share 1/2 -> "copy" (1, 1, 0), exact;
  "copy" moves 8 B read + 8 B written nominally per iteration, 8 B more for
  the write-allocate of its write-only stream -> factor 24/16 = 1.5.
  daxpy: (1, 0, 1), share 1/3 -> "daxpy" (1, 0, 1), exact; no write-only
  stream -> factor 1.
  triad a = b + s*c: (2, 1, 0), share 1/3 -> "daxpy" (share 1/3, distance 0)
  beats "triad" (3, 1, 0) (share 1/4, distance 1/12); factor 1.
* CSX hierarchy: L2 misses are served by memory (or by L3 if L3 still holds
  the line as a victim); every line replaced in L2 (clean or dirty) is
  written to L3 (victim cache); L3 writes only dirty lines to memory.
* LC usable capacities (fill factor 1/2): L1 16 KiB, L2 512 KiB,
  L3 0.5 * (14 MiB + 1 MiB L2 share) = 7.5 MiB; the whole working set of the
  repeated kernel may fill 2/3 of each (L3: 10 MiB).
* ECM composition (no link overlaps on CSX):
  T_L1 = max(T_OL, T_nOL), T_L2 = max(T_OL, T_nOL + T_L1L2),
  T_L3 = max(T_OL, T_nOL + T_L1L2 + T_L2L3), T_MEM = max(T_OL, T_L3 serial sum + T_L3MEM).
* T_L3MEM (single core, the ECM model as published, seed 004) uses the *saturated*
  bandwidth: the highest MEM bandwidth of the matching benchmark measured on 1..10
  cores (one SNC NUMA domain). n_s = ceil(T_MEM / T_L3MEM); scaling on n cores
  max(T_MEM / n, T_L3MEM,sat(d)) with d = ceil(n / 10) NUMA domains filled one after
  the other: cores 11..20 use the highest measurement on up to 20 cores (both domains).
  (The Roofline model keeps the bandwidth measured on the requested core count.)
* Port model (SKX = CSX): a load is one AGU uop on {2,3} plus one data uop on
  {2D,3D}; a store is an address uop on {2,3} (port 7 only for addresses
  without index register; every store below is indexed) plus a data uop on {4};
  ymm add/mul/FMA on {0,1}; add/cmp r64 on {0,1,5,6}; the taken loop branch on
  {6} (macro fusion is not modelled at the ports, only in the front end).
  The balancing is the lexicographically minimal port-load vector ("water
  filling": the busiest set S maximising W(S)/|S| first, then the rest).
  T_nOL = busiest of {2D, 3D}; T_OL = max(busiest other port, LCD, front end);
  cy/CL = cy/asm-iteration * 8 It/CL / (It per asm iteration).
  ymm load latency 7 cy, FP add/mul/FMA 4 cy (critical path).
  A vector load that crosses a cache line costs one more cycle on {2D,3D}
  (SKX.yml line_split; split stores are not charged).
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ALL_PORTS", "CL", "CLOCK", "COPY", "COPY_MEM", "COPY_WA", "Case", "DAXPY",
           "DP_PEAK", "IT_PER_CL", "TRIAD", "bpc", "copy_sat_cycles", "l1l2", "l2l3", "ports"]


# --------------------------------------------------------------------------- inputs
CLOCK = 2.5e9            # Hz (CSX.yml clock)
CL = 64                  # B per cache line
IT_PER_CL = 8            # 64 B / 8 B per double
L2_BPC = 64.0            # B/cy, L1 <- L2, half-duplex
L3_BPC = 16.0            # B/cy, L2 <-> L3, full-duplex
DP_PEAK = 32.0           # FLOP/cy, DP total (2 AVX-512 FMA units * 8 lanes * 2)

# Measured bandwidths, GB/s, 1 thread per core, transcribed from CSX.yml
# (benchmarks.measurements.<level>.1.results.<kernel>[cores - 1]).
COPY_MEM = {1: 14.56, 2: 26.79, 3: 30.55, 4: 32.70, 5: 34.45, 6: 35.60, 9: 36.54, 10: 36.46,
            20: 73.04}
DAXPY_MEM = {1: 21.32, 2: 38.26, 4: 50.49, 5: 53.15, 8: 55.02, 10: 54.77, 20: 108.63}
# Highest MEM bandwidth on 1..10 cores (scan of the 10 values in CSX.yml):
# copy:  14.56 26.79 30.55 32.70 34.45 35.60 36.31 36.51 [36.54] 36.46 -> 9 cores
# daxpy: 21.32 38.26 45.88 50.49 53.15 54.54 54.98 [55.02] 54.90 54.77 -> 8 cores
COPY_SAT_CORES, DAXPY_SAT_CORES = 9, 8
# single-core L1 / L2 / L3 bandwidths for the Roofline levels
COPY_1CORE = {"L1": 279.30, "L2": 68.91, "L3": 23.63, "MEM": 14.56}
DAXPY_1CORE = {"L1": 291.92, "L2": 106.79, "L3": 35.62, "MEM": 21.32}
COPY_WA = 24 / 16        # write-allocate factor of the copy benchmark (below L1)
DAXPY_WA = 1.0           # daxpy has no write-only stream
# In the victim L3 the benchmarks also sent every line back from L2 as a victim:
COPY_VICTIM = 32 / 16    # copy: b + WA a in, b + a back
DAXPY_VICTIM = 32 / 24   # daxpy: a + b in, a + b back, per 16 B read + 8 B written


def bpc(gbs: float, wa: float) -> float:
    """Bytes per cycle moved at a measured bandwidth (GB/s) with WA factor ``wa``."""
    return gbs * 1e9 * wa / CLOCK


def copy_sat_cycles(nbytes: float, domains: int = 1) -> float:
    """Memory cycles at the saturated copy bandwidth of ``domains`` NUMA domains."""
    return nbytes / bpc(COPY_MEM[COPY_SAT_CORES if domains == 1 else 20], COPY_WA)


def daxpy_sat_cycles(nbytes: float, domains: int = 1) -> float:
    """Memory cycles at the saturated daxpy bandwidth of ``domains`` NUMA domains."""
    return nbytes / bpc(DAXPY_MEM[DAXPY_SAT_CORES if domains == 1 else 20], DAXPY_WA)


def copy_mem_cycles(nbytes: float, cores: int) -> float:
    return nbytes / bpc(COPY_MEM[cores], COPY_WA)


def daxpy_mem_cycles(nbytes: float, cores: int) -> float:
    return nbytes / bpc(DAXPY_MEM[cores], DAXPY_WA)


def l1l2(loads: float, stores: float) -> float:
    return (loads + stores) * CL / L2_BPC           # half-duplex


def l2l3(loads: float, stores: float) -> float:
    return max(loads, stores) * CL / L3_BPC         # full-duplex


ALL_PORTS = ("0", "0DV", "1", "2", "2D", "3", "3D", "4", "5", "6", "7")


@dataclass(frozen=True)
class Case:
    """One kernel at one size, with every number derived by hand (see the comments)."""

    name: str
    kernel: str
    defines: dict
    flops_per_it: int
    ports_per_asm_it: dict            # port -> cycles per assembly iteration
    it_per_asm_it: int
    lcd_per_asm_it: float
    frontend_per_asm_it: float
    critical_path_per_asm_it: float
    t_ol_source: str
    links: tuple                      # ((loads, stores) L1L2, L2L3, L3MEM) in CL/CL
    t_l3mem: float                    # cy/CL, at the saturated bandwidth (single core)
    predictions: tuple                # T_L1, T_L2, T_L3, T_MEM in cy/CL
    saturated: float                  # T_L3MEM at the saturated bandwidth, cy/CL
    n_s: int
    scaling: dict                     # cores -> (cy/CL, memory bound?)
    lc_notes: tuple                   # fragments of the layer-condition notes
    bench: str                        # benchmark kernel used for all levels
    roofline_bytes: dict              # level -> bytes per CL
    roofline_bandwidth: dict          # level -> B/s as used (WA-corrected below L1)
    roofline_bottleneck: str
    roofline_asm_bottleneck: str
    cli: tuple = field(default=())    # -D arguments of the CLI

    @property
    def scale(self) -> float:
        return IT_PER_CL / self.it_per_asm_it

    @property
    def t_nol(self) -> float:
        return max(self.ports_per_asm_it["2D"], self.ports_per_asm_it["3D"]) * self.scale

    @property
    def t_ol(self) -> float:
        other = max(c for p, c in self.ports_per_asm_it.items() if p not in ("2D", "3D"))
        return max(other, self.lcd_per_asm_it, self.frontend_per_asm_it) * self.scale

    @property
    def flops_per_cl(self) -> int:
        return self.flops_per_it * IT_PER_CL


def ports(**nonzero) -> dict:
    """Port table with the keyword ports set ('p2D' -> '2D') and the rest 0."""
    table = {p: 0.0 for p in ALL_PORTS}
    for key, value in nonzero.items():
        table[key[1:]] = value
    return table


# =========================================================================== copy
# kernels/copy.c, N = 10^7: a[i] = b[i]. Two arrays of 80 MB: nothing fits anywhere.
#
# (1) In-core. gcc 12 loop (.L4, 4 doubles per ymm, pointer +32 B per asm iteration
#     -> 4 It per asm iteration, 8/4 = 2 asm iterations per CL):
#       vmovapd (%rbx,%rdx), %ymm1      load:  AGU {2,3} + data {2D,3D}
#       vmovapd %ymm1, 0(%r13,%rdx)     store: address {2,3} (indexed: no p7) + data {4}
#       addq $32, %rdx                  {0,1,5,6}
#       cmpq %rdx, %rax                 {0,1,5,6}
#       jne .L4                         {6}
#     Balancing: {2,3} carry 2 AGU uops -> 1.0 each; {4}: 1.0; {6}: jne 1.0; {2D,3D}:
#     1 uop -> 0.5 each. The union {2,3,4,6} attains the maximum 1.0 (4 uops on 4
#     ports), the add and cmp may not use p6 any more -> {0,1,5}: 2/3 each.
#     T_nOL = 0.5 * 2 = 1.0 cy/CL; busiest other port 1.0 * 2 = 2.0; LCD: addq on rdx,
#     1 cy -> 2.0; front end: load, store (micro-fused), add, cmp+jne (macro-fused) =
#     4 fused uops / 4 per cy = 1.0 -> 2.0. T_OL = 2.0 (three-way tie; the report names
#     the first bound in its order, "port throughput"). Critical path: the 7 cy ymm load
#     feeding the store (latency 0) = 7 cy per asm iteration.
# (2) Traffic: no layer condition holds anywhere (condition 0 of 1: the only reuse
#     window is the whole sweep, 2 * 80 MB). Per CL of work:
#     L1-L2: load b (1) + write-allocate a (1) = 2 loads, write back a = 1 store:
#            T_L1L2 = 3 * 64 / 64 = 3.0 cy.
#     L2-L3: L2 misses come from memory (0 loads from L3), both replaced lines (b clean,
#            a dirty) go to L3: 2 stores; full duplex: max(0, 2) * 64 / 16 = 8.0 cy.
#     L3-MEM: 2 loads (b, WA of a) + 1 store (a) = 192 B at the saturated copy
#            bandwidth, 36.54 GB/s on 9 cores (the highest on 1..10), * 1.5 (WA) =
#            54.81 GB/s = 21.924 B/cy -> T_L3MEM = 192 / 21.924 = 8.7575 cy.
# (3) ECM: { 2 || 1 | 3 | 8 | 8.76 } -> T_L1 = max(2, 1) = 2; T_L2 = max(2, 1+3) = 4;
#     T_L3 = 1+3+8 = 12; T_MEM = 12 + 8.7575 = 20.7575 cy/CL.
#     n_s = ceil(20.7575 / 8.7575 = 2.370) = 3.
#     Scaling: 1: 20.758 core; 2: 10.379 core; 4: max(5.189, 8.7575) memory;
#     10: 8.7575 memory; 20: max(1.038, 192/(73.04*0.6 = 43.824) = 4.381) memory.
# (4) Units: cy/It = cy/CL / 8 (T_MEM 2.595 cy/It); It/s = 2.5e9 * 8 / cy/CL
#     (T_MEM 963.5 MIt/s); FLOP/s is undefined (0 FLOP per iteration).
# (5) Roofline (copy benchmark, 1 core): L1 2 accesses * 8 B * 8 = 128 B at 279.30 GB/s
#     -> 1.146 cy; L2 192 B at 68.91*1.5 = 103.365 GB/s -> 4.644; L3 128 B (the two
#     victims) at 23.63*1.5 = 35.445 GB/s -> 9.028; MEM 192 B at 21.84 GB/s -> 21.978.
#     No FLOPs: compute 0, unit It/s. Bottleneck MEM: 8 * 2.5e9 / 21.978 = 910 MIt/s.
#     RooflineASM: in-core max(T_OL, T_nOL) = 2.0 cy < 21.978 -> MEM, 910 MIt/s.
_COPY_MEM = copy_sat_cycles(192)
_COPY_T_MEM = 1.0 + 3.0 + 8.0 + _COPY_MEM
COPY = Case(
    name="copy", kernel="copy.c", defines={"N": 10**7}, flops_per_it=0,
    ports_per_asm_it=ports(p0=2 / 3, p1=2 / 3, p5=2 / 3, p2=1.0, p3=1.0, p2D=0.5, p3D=0.5,
                           p4=1.0, p6=1.0),
    it_per_asm_it=4, lcd_per_asm_it=1.0, frontend_per_asm_it=4 / 4,
    critical_path_per_asm_it=7.0, t_ol_source="port throughput",
    links=((2, 1), (0, 2), (2, 1)), t_l3mem=_COPY_MEM,
    predictions=(2.0, 1.0 + 3.0, 1.0 + 3.0 + 8.0, _COPY_T_MEM),
    saturated=_COPY_MEM, n_s=3,
    scaling={1: (_COPY_T_MEM, False), 2: (_COPY_T_MEM / 2, False),
             4: (_COPY_MEM, True), 10: (_COPY_MEM, True), 20: (copy_sat_cycles(192, 2), True)},
    lc_notes=("L1: layer condition 0 of 1 holds", "L2: layer condition 0 of 1 holds",
              "L3: layer condition 0 of 1 holds"),
    bench="copy",
    roofline_bytes={"L1": 2 * 8 * 8, "L2": 3 * 64, "L3": 2 * 64, "MEM": 3 * 64},
    roofline_bandwidth={"L1": COPY_1CORE["L1"] * 1e9, "L2": COPY_1CORE["L2"] * 1e9 * COPY_WA,
                        "L3": COPY_1CORE["L3"] * 1e9 * COPY_VICTIM,
                        "MEM": COPY_1CORE["MEM"] * 1e9 * COPY_WA},
    roofline_bottleneck="MEM", roofline_asm_bottleneck="MEM",
    cli=("-D", "N", "10000000"),
)

# =========================================================================== triad
# kernels/triad.c, N = 10^7: a[i] = b[i] + s * c[i] (2 FLOP/It), three arrays in memory.
#
# (1) gcc 12 loop (.L4, 4 It per asm iteration):
#       vmovapd 0(%r13,%rax), %ymm1              load
#       vfmadd213pd (%r14,%rax), %ymm2, %ymm1    load + FMA {0,1}
#       vmovapd %ymm1, (%r15,%rax)               store (indexed)
#       addq $32, %rax ; cmpq %rdx, %rax         {0,1,5,6} each
#       jne .L4                                  {6}
#     {2,3}: 2 load AGU + 1 store address = 3 uops -> 1.5 each (the maximum).
#     Remaining: {2D,3D} 2 uops -> 1.0; {4} 1.0; {0,1,5,6}: FMA + add + cmp + jne =
#     4 uops on 4 ports, feasible at 1.0 each (FMA on 0/1, jne on 6) -> 1.0 each.
#     T_OL = 1.5 * 2 = 3.0 cy/CL (port throughput); T_nOL = 1.0 * 2 = 2.0;
#     LCD 1 * 2 = 2.0; front end: load, FMA+load, store, add, cmp+jne = 5 fused uops
#     -> 1.25 * 2 = 2.5. Critical path: 7 (load) + 4 (FMA) = 11 per asm iteration.
# (2) No layer condition holds (condition 0 of 1). Per CL:
#     L1-L2: b, c, WA a = 3 loads + a = 1 store -> 4 * 64 / 64 = 4.0 cy.
#     L2-L3: 0 loads, 3 victims (b, c clean; a dirty) -> max(0, 3) * 4 = 12.0 cy.
#     L3-MEM: 3 loads + 1 store = 256 B with the daxpy benchmark (mix (2,1,0) -> daxpy,
#            see the module doc) at its saturated bandwidth, 55.02 GB/s on 8 cores =
#            22.008 B/cy (no write-only stream in daxpy: factor 1) -> 256 / 22.008 =
#            11.632 cy.
# (3) T_L1 = max(3, 2) = 3; T_L2 = max(3, 2+4) = 6; T_L3 = 2+4+12 = 18;
#     T_MEM = 18 + 11.632 = 29.632 cy/CL. n_s = ceil(29.632 / 11.632 = 2.547) = 3.
#     Scaling: 1: 29.632 core; 2: 14.816 core; 4, 5, 10: max(<= 7.41, 11.632) memory;
#     20: 256/(108.63*0.4 = 43.452) = 5.892 memory.
# (4) 16 FLOP per CL: FLOP/s = 16 * 2.5e9 / cy/CL, e.g. T_L1 = 3 cy -> 13.33 GFLOP/s,
#     T_MEM -> 1.350 GFLOP/s; It/s = 20e9 / cy/CL; cy/It = cy/CL / 8.
# (5) Roofline (daxpy benchmark, no WA correction): L1 3 accesses * 8 B * 8 = 192 B at
#     291.92 GB/s -> 1.644 cy; L2 256 B at 106.79 -> 5.993; L3 192 B at 35.62 * 4/3
#     (victim L3: the benchmark also sent a and b back, 32 B per 24 nominal) -> 10.106;
#     MEM 256 B at 21.32 -> 30.019; compute 16 / 32 = 0.5 cy. Bottleneck MEM,
#     AI 16/256 = 0.0625 FLOP/B, 16 * 2.5e9 / 30.019 = 1.3325 GFLOP/s.
#     RooflineASM: in-core 3.0 cy < 30.019 -> MEM, 1.3325 GFLOP/s.
_TRIAD_MEM = daxpy_sat_cycles(256)
_TRIAD_T_MEM = 2.0 + 4.0 + 12.0 + _TRIAD_MEM
TRIAD = Case(
    name="triad", kernel="triad.c", defines={"N": 10**7}, flops_per_it=2,
    ports_per_asm_it=ports(p0=1.0, p1=1.0, p5=1.0, p6=1.0, p2=1.5, p3=1.5, p2D=1.0, p3D=1.0,
                           p4=1.0),
    it_per_asm_it=4, lcd_per_asm_it=1.0, frontend_per_asm_it=5 / 4,
    critical_path_per_asm_it=7.0 + 4.0, t_ol_source="port throughput",
    links=((3, 1), (0, 3), (3, 1)), t_l3mem=_TRIAD_MEM,
    predictions=(3.0, 2.0 + 4.0, 2.0 + 4.0 + 12.0, _TRIAD_T_MEM),
    saturated=_TRIAD_MEM, n_s=3,
    scaling={1: (_TRIAD_T_MEM, False), 2: (_TRIAD_T_MEM / 2, False),
             4: (_TRIAD_MEM, True), 5: (_TRIAD_MEM, True), 10: (_TRIAD_MEM, True),
             20: (daxpy_sat_cycles(256, 2), True)},
    lc_notes=("L1: layer condition 0 of 1 holds", "L2: layer condition 0 of 1 holds",
              "L3: layer condition 0 of 1 holds"),
    bench="daxpy",
    roofline_bytes={"L1": 3 * 8 * 8, "L2": 4 * 64, "L3": 3 * 64, "MEM": 4 * 64},
    roofline_bandwidth={**{lvl: DAXPY_1CORE[lvl] * 1e9 for lvl in ("L1", "L2", "MEM")},
                        "L3": DAXPY_1CORE["L3"] * 1e9 * DAXPY_VICTIM},
    roofline_bottleneck="MEM", roofline_asm_bottleneck="MEM",
    cli=("-D", "N", "10000000"),
)

# =========================================================================== daxpy
# kernels/daxpy.c, N = 10^7: a[i] = a[i] + s * b[i] (2 FLOP/It).
#
# (1) gcc 12 loop (.L4): vmovapd load; vfmadd213pd (%rbx,%rax) load + FMA; vmovapd store
#     to (%rbx,%rax) (indexed); addq; cmpq; jne - the same uops as triad:
#     {2,3} 1.5, {2D,3D} 1.0, {4} 1.0, {0,1,5,6} 1.0 -> T_OL 3.0, T_nOL 2.0, LCD 2.0,
#     front end 5 uops -> 2.5, critical path 7 + 4 = 11 per asm iteration.
# (2) No layer condition holds. L1-L2: a, b = 2 loads (a is read: no extra WA) + a =
#     1 store -> 3.0 cy. L2-L3: 2 victims (a dirty, b clean) -> 2 * 4 = 8.0 cy.
#     L3-MEM: 2 loads + 1 store = 192 B at the saturated daxpy bandwidth 55.02 GB/s
#            (8 cores) = 22.008 B/cy -> 192 / 22.008 = 8.724 cy.
# (3) T_L1 = 3; T_L2 = max(3, 2+3) = 5; T_L3 = 2+3+8 = 13; T_MEM = 13 + 8.724 = 21.724.
#     n_s = ceil(21.724 / 8.724 = 2.490) = 3.
#     Scaling: 1: 21.724 core; 2: 10.862 core; 4, 5, 10: 8.724 memory;
#     20: 192/43.452 = 4.419 memory.
# (4) 16 FLOP per CL: T_MEM -> 16 * 2.5e9 / 21.724 = 1.841 GFLOP/s.
# (5) Roofline (daxpy): L1 3 distinct accesses (a read, b read, a write) = 192 B ->
#     1.644 cy; L2 192 B -> 4.495; L3 128 B -> 8.984; MEM 192 B -> 22.514; compute 0.5.
#     Bottleneck MEM, AI 16/192 = 0.0833, 1.777 GFLOP/s (RooflineASM: in-core 3.0 -> MEM).
_DAXPY_MEM = daxpy_sat_cycles(192)
_DAXPY_T_MEM = 2.0 + 3.0 + 8.0 + _DAXPY_MEM
DAXPY = Case(
    name="daxpy", kernel="daxpy.c", defines={"N": 10**7}, flops_per_it=2,
    ports_per_asm_it=TRIAD.ports_per_asm_it,
    it_per_asm_it=4, lcd_per_asm_it=1.0, frontend_per_asm_it=5 / 4,
    critical_path_per_asm_it=7.0 + 4.0, t_ol_source="port throughput",
    links=((2, 1), (0, 2), (2, 1)), t_l3mem=_DAXPY_MEM,
    predictions=(3.0, 2.0 + 3.0, 2.0 + 3.0 + 8.0, _DAXPY_T_MEM),
    saturated=_DAXPY_MEM, n_s=3,
    scaling={1: (_DAXPY_T_MEM, False), 2: (_DAXPY_T_MEM / 2, False),
             4: (_DAXPY_MEM, True), 5: (_DAXPY_MEM, True), 10: (_DAXPY_MEM, True),
             20: (daxpy_sat_cycles(192, 2), True)},
    lc_notes=("L1: layer condition 0 of 1 holds", "L2: layer condition 0 of 1 holds",
              "L3: layer condition 0 of 1 holds"),
    bench="daxpy",
    roofline_bytes={"L1": 3 * 8 * 8, "L2": 3 * 64, "L3": 2 * 64, "MEM": 3 * 64},
    roofline_bandwidth={**{lvl: DAXPY_1CORE[lvl] * 1e9 for lvl in ("L1", "L2", "MEM")},
                        "L3": DAXPY_1CORE["L3"] * 1e9 * DAXPY_VICTIM},
    roofline_bottleneck="MEM", roofline_asm_bottleneck="MEM",
    cli=("-D", "N", "10000000"),
)
