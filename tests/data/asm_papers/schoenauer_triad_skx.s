# Schoenauer triad a[j] = b[j] + c[j]*d[j], gcc -O3 for Skylake (AVX, unrolled 4x by SIMD).
# Re-typed from the OSACA PMBS'18 paper (001), Table II. Expected on SKX: TP 2.0 cy
# (three loads + one store address on the two load/AGU ports 2 and 3).
.L10:
        vmovapd (%r15,%rax), %ymm0
        vmovapd (%r12,%rax), %ymm3
        addl    $1, %ecx
        vfmadd132pd 0(%r13,%rax), %ymm3, %ymm0
        vmovapd %ymm0, (%r14,%rax)
        addq    $32, %rax
        cmpl    %ecx, %r10d
        ja      .L10
