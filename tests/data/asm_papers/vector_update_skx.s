# Vector update a[i] = a[i] + scalar, icc -xCORE-AVX512 -qopt-zmm-usage=high, re-typed from the
# OSACA master thesis (000), Listing 4.1 (analysed for SKX). Port binding per IACA: 2.0 cy
# (ports 2/3: two loads + two indexed store addresses; port 4: two stores).
..B1.38:
        vaddpd    (%r13,%rcx,8), %zmm3, %zmm1
        vaddpd    64(%r13,%rcx,8), %zmm3, %zmm2
        vmovupd   %zmm1, (%r13,%rcx,8)
        vmovupd   %zmm2, 64(%r13,%rcx,8)
        addq      $16, %rcx
        cmpq      %r15, %rcx
        jb        ..B1.38
