# b[i] = a[i] / s with AVX2 (no loop-carried chain through the division): the throughput
# is the divider-pipe occupancy of one vdivpd ymm per iteration.
.L3:
        vmovupd (%rsi,%rax), %ymm0
        vdivpd  %ymm1, %ymm0, %ymm0
        vmovupd %ymm0, (%rdi,%rax)
        addq    $32, %rax
        cmpq    %rax, %rdx
        jne     .L3
