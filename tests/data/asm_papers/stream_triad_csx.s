# STREAM triad a[i] = b[i] + s*c[i] (AVX2, gcc), re-typed from the OSACA master thesis (000),
# Listing 1.1 / Figure 1.4 (CSX). OSACA reports TP 1.5 cy, CP 8 cy (4 load + 4 FMA), LCD 1 cy.
        .text
# OSACA-BEGIN
.L22:
        vmovapd 0(%r13,%rax), %ymm0
        vfmadd213pd (%r14,%rax), %ymm1, %ymm0
        vmovapd %ymm0, (%r12,%rax)
        addq    $32, %rax
        cmpq    %rax, %r15
        jne     .L22
# OSACA-END
        vzeroupper
        ret
