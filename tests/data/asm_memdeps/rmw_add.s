# Read-modify-write chains through one memory location (hand-written):
#   void rmw_add(long n, int *p, int x)        { for (; n; --n) *p += x;  }  addl %edx, (%rsi)
# The load part of every addl reads what the previous iteration's addl stored at the
# same address: the chain is store-to-load forwarding + the add, distance 1.
        .text
        .globl  rmw_add
        .type   rmw_add, @function
rmw_add:
.L1:
        addl    %edx, (%rsi)
        decq    %rdi
        jne     .L1
        ret
        .size   rmw_add, .-rmw_add
        .section .note.GNU-stack,"",@progbits
