# pi by rectangular integration, the gcc -O1 loop of the OSACA PMBS'18 paper (001),
# Sect. III-B, wrapped into a callable function (double pi_o1(int n)) for measurements.
# The loop body is the paper's, except that the loop bound is n (%edi) instead of the
# immediate 1000000000 (same instruction form class: cmpl r32,r32 instead of cmpl imm,r32).
# The sum lives in the stack slot (%rsp): vaddsd (%rsp) + vmovsd to (%rsp) every iteration,
# so the addition chain runs through store-to-load forwarding (distance 1).
# Measured in the paper: 9.02 cy/it on Skylake, 11.48 cy/it on Zen.
        .text
        .globl  pi_o1
        .type   pi_o1, @function
pi_o1:
        subq    $24, %rsp
        vxorpd  %xmm5, %xmm5, %xmm5
        vmovsd  %xmm5, (%rsp)
        vcvtsi2sd %edi, %xmm5, %xmm3
        vmovsd  .LCone(%rip), %xmm2
        vdivsd  %xmm3, %xmm2, %xmm3
        vmovsd  .LCfour(%rip), %xmm1
        vmovsd  .LChalf(%rip), %xmm4
        xorl    %eax, %eax
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
        cmpl    %edi, %eax
        jne     .L2
        vmovsd  (%rsp), %xmm0
        vmulsd  %xmm3, %xmm0, %xmm0
        addq    $24, %rsp
        ret
        .size   pi_o1, .-pi_o1
        .section .rodata.cst8,"aM",@progbits,8
        .align 8
.LCone:  .double 1.0
.LCfour: .double 4.0
.LChalf: .double 0.5
        .section .note.GNU-stack,"",@progbits
