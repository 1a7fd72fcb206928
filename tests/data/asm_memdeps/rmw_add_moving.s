# Read-modify-write to a moving address (hand-written): x[i] += y, i advancing by one
# element per iteration. Every location is touched once, so there is no memory-carried
# dependency (the loop is throughput bound).
#   void rmw_add_moving(long n, int *x, int y) { for (long i = 0; i < n; ++i) x[i] += y; }
        .text
        .globl  rmw_add_moving
        .type   rmw_add_moving, @function
rmw_add_moving:
        xorl    %eax, %eax
.L1:
        addl    %edx, (%rsi,%rax,4)
        incq    %rax
        cmpq    %rax, %rdi
        jne     .L1
        ret
        .size   rmw_add_moving, .-rmw_add_moving
        .section .note.GNU-stack,"",@progbits
