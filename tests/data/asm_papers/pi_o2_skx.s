# pi by rectangular integration, gcc -O2 for Skylake, re-typed from the OSACA PMBS'18 paper
# (001), Table VII. Bound by the non-pipelined divider (vdivsd: 4 cy on 0DV); measured
# 4.00 cy/it, IACA 4.00, OSACA (equal port split) 4.25. The vxorpd zero idiom cuts the
# xmm0 chain, so the only loop-carried chain is the 4 cy vaddsd accumulation into xmm1.
.L2:
        vxorpd  %xmm0, %xmm0, %xmm0
        vcvtsi2sd %eax, %xmm0, %xmm0
        addl    $1, %eax
        vaddsd  %xmm5, %xmm0, %xmm0
        vmulsd  %xmm3, %xmm0, %xmm0
        vfmadd132sd %xmm0, %xmm4, %xmm0
        vdivsd  %xmm0, %xmm2, %xmm0
        vaddsd  %xmm0, %xmm1, %xmm1
        cmpl    $1000000000, %eax
        jne     .L2
