// Gauss-Seidel sweep (2D, in place), armflang 19.2, ThunderX2.
// Loop body re-typed from the OSACA thesis (shared/seeds/000_*), Listing 4.8
// ("Condensed OSACA output for the analysis of the armflang-compiled
// GAUSS-SEIDEL method kernel for the TX2 micro-architecture").
// The thesis reports for it: TP 3.00 cy, CP 26 cy, LCD 18 cy
// (fadd, fadd, fmul: 6 + 6 + 6 cy) per assembly iteration; measured 18.37 cy.
.LBB0_62:
        ldr     d1, [x7], #8
        fadd    d0, d1, d0
        ldr     d2, [x22]
        ldr     d3, [x23], #8
        fadd    d2, d2, d3
        fadd    d0, d0, d2
        sub     w26, w26, #1
        fmul    d0, d0, d9
        stur    d0, [x22, #-8]
        add     x22, x22, #8
        cmp     w26, #2
        b.gt    .LBB0_62
