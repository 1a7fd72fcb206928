# pi by rectangular integration, gcc -O1 for Skylake, re-typed from the OSACA PMBS'18 paper
# (001), Sect. III-B (the mnemonic printed there as "vcvttsi2sd" is vcvtsi2sd). The sum lives
# in a stack slot: load + add + store + forwarded reload every iteration. Measured 9.02 cy/it
# on Skylake, IACA 3.91, OSACA 4.75 -- both miss the chain through memory.
.L2:
        vxorpd  %xmm0, %xmm0, %xmm0
        vcvtsi2sd %eax, %xmm0, %xmm0
        vaddsd  %xmm4, %xmm0, %xmm0
        vmulsd  %xmm3, %xmm0, %xmm0
        vmulsd  %xmm0, %xmm0, %xmm0
        vaddsd  %xmm2, %xmm0, %xmm0
        vdivsd  %xmm0, %xmm1, %xmm0
        vaddsd  (%rsp), %xmm0, %xmm5
        vmovsd  %xmm5, (%rsp)
        addl    $1, %eax
        cmpl    $1000000000, %eax
        jne     .L2
