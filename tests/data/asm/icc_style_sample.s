# Hand-written in the layout of Intel icc/ifort -S output (icc itself is not
# available here): '..B1.N' block labels, '# Preds' / '# LOE' comments after
# labels and instructions, '#line.col' source positions, '.align N,0x90'.
	.file "triad.c"
	.text
..TXTST0:
# -- Begin  triad
	.text
# mark_begin;
       .align    16,0x90
	.globl triad
# --- triad(int, double *, double *, double *, double)
triad:
# parameter 1: %edi
# parameter 2: %rsi
..B1.1:                         # Preds ..B1.0
                                # Execution count [1.00e+00]
	.cfi_startproc
..___tag_value_triad.1:
..L2:
                                                          #1.89
        testl     %edi, %edi                                    #2.23
        jle       ..B1.8        # Prob 50%                      #2.23
                                # LOE rdx rcx rbx rbp rsi r12 r13 r14 r15 edi xmm0
..B1.2:                         # Preds ..B1.1
                                # Execution count [1.00e+00]
        movslq    %edi, %rdi                                    #2.3
        vbroadcastsd %xmm0, %zmm1                               #3.18
        xorl      %eax, %eax                                    #2.3
                                # LOE rax rdx rcx rbx rbp rsi rdi r12 r13 r14 r15 zmm1
..B1.4:                         # Preds ..B1.4 ..B1.2
                                # Execution count [1.00e+03]
        vmovupd   (%rdx,%rax,8), %zmm2                          #3.12
        vfmadd231pd (%rcx,%rax,8), %zmm1, %zmm2                 #3.5
        vmovupd   %zmm2, (%rsi,%rax,8)                          #3.5
        addq      $8, %rax                                      #2.3
        cmpq      %rdi, %rax                                    #2.3
        jb        ..B1.4        # Prob 82%                      #2.3
                                # LOE rax rdx rcx rbx rbp rsi rdi r12 r13 r14 r15 zmm1
..B1.8:                         # Preds ..B1.4 ..B1.1
                                # Execution count [1.00e+00]
        vzeroupper                                              #4.1
        ret                                                     #4.1
        .align    16,0x90
                                # LOE
	.cfi_endproc
# mark_end;
	.type	triad,@function
	.size	triad,.-triad
..LNtriad.0:
	.data
# -- End  triad
	.section .rodata, "a"
	.align 8
	.align 8
_2il0floatpacket.0:
	.long	0x00000000,0x3ff00000
	.type	_2il0floatpacket.0,@object
	.size	_2il0floatpacket.0,8
	.data
	.section .note.GNU-stack, ""
# End
