# Sum reduction s += a[i], icc with modulo variable expansion (four zmm accumulators),
# re-typed from the OSACA master thesis (000), Listing 4.6 (CSX): four independent
# loop-carried vaddpd chains of 4 cy each, plus the 1 cy loop counter.
..B1.38:                        # Preds ..B1.38 ..B1.37
        vaddpd    (%r13,%rax,8), %zmm4, %zmm4
        vaddpd    64(%r13,%rax,8), %zmm3, %zmm3
        vaddpd    128(%r13,%rax,8), %zmm2, %zmm2
        vaddpd    192(%r13,%rax,8), %zmm1, %zmm1
        addq      $32, %rax
        cmpq      %r14, %rax
        jb        ..B1.38       # Prob 82%
..B1.39:
        vaddpd    %zmm3, %zmm4, %zmm3
        vaddpd    %zmm1, %zmm2, %zmm1
        vaddpd    %zmm1, %zmm3, %zmm4
