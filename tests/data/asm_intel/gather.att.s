	.file	"gather.c"
	.text
	.p2align 4
	.globl	gather
	.type	gather, @function
gather:
.LFB0:
	.cfi_startproc
	movq	%rdi, %rcx
	movq	%rsi, %rdi
	movl	%edx, %esi
	testl	%edx, %edx
	jle	.L9
	leal	-1(%rdx), %eax
	cmpl	$6, %eax
	jbe	.L10
	shrl	$3, %edx
	salq	$5, %rdx
	movq	%rdi, %rax
	addq	%rdi, %rdx
	vpxor	%xmm1, %xmm1, %xmm1
	kxnorb	%k1, %k1, %k1
	.p2align 4,,10
	.p2align 3
.L4:
	vmovdqu	(%rax), %ymm3
	kmovb	%k1, %k2
	vpgatherdd	(%rcx,%ymm3,4), %ymm0{%k2}
	vpmovsxdq	%xmm0, %ymm2
	vextracti128	$0x1, %ymm0, %xmm0
	vpaddq	%ymm1, %ymm2, %ymm1
	vpmovsxdq	%xmm0, %ymm0
	addq	$32, %rax
	vpaddq	%ymm1, %ymm0, %ymm1
	cmpq	%rax, %rdx
	jne	.L4
	vmovdqa	%xmm1, %xmm2
	vextracti64x2	$0x1, %ymm1, %xmm1
	vpaddq	%xmm1, %xmm2, %xmm2
	vpsrldq	$8, %xmm2, %xmm0
	movl	%esi, %edx
	vpaddq	%xmm0, %xmm2, %xmm0
	andl	$-8, %edx
	vmovq	%xmm0, %rax
	movl	%edx, %r8d
	cmpl	%edx, %esi
	je	.L17
	vzeroupper
.L3:
	movl	%esi, %r9d
	subl	%r8d, %r9d
	leal	-1(%r9), %r10d
	cmpl	$2, %r10d
	jbe	.L7
	vmovdqu	(%rdi,%r8,4), %xmm1
	kxnorb	%k3, %k3, %k3
	vpgatherdd	(%rcx,%xmm1,4), %xmm0{%k3}
	vpmovsxdq	%xmm0, %xmm1
	vpsrldq	$8, %xmm0, %xmm0
	vpaddq	%xmm2, %xmm1, %xmm1
	vpmovsxdq	%xmm0, %xmm0
	vpaddq	%xmm1, %xmm0, %xmm0
	movl	%r9d, %r8d
	andl	$-4, %r8d
	vpsrldq	$8, %xmm0, %xmm1
	vpaddq	%xmm1, %xmm0, %xmm0
	addl	%r8d, %edx
	andl	$3, %r9d
	vmovq	%xmm0, %rax
	je	.L1
.L7:
	movslq	%edx, %r8
	leaq	0(,%r8,4), %r9
	movslq	(%rdi,%r8,4), %r8
	movslq	(%rcx,%r8,4), %r8
	addq	%r8, %rax
	leal	1(%rdx), %r8d
	cmpl	%r8d, %esi
	jle	.L1
	movslq	4(%rdi,%r9), %r8
	addl	$2, %edx
	movslq	(%rcx,%r8,4), %r8
	addq	%r8, %rax
	cmpl	%edx, %esi
	jle	.L1
	movslq	8(%rdi,%r9), %rdx
	movslq	(%rcx,%rdx,4), %rdx
	addq	%rdx, %rax
	ret
	.p2align 4,,10
	.p2align 3
.L9:
	xorl	%eax, %eax
.L1:
	ret
	.p2align 4,,10
	.p2align 3
.L17:
	vzeroupper
	ret
.L10:
	vpxor	%xmm2, %xmm2, %xmm2
	xorl	%r8d, %r8d
	xorl	%edx, %edx
	xorl	%eax, %eax
	jmp	.L3
	.cfi_endproc
.LFE0:
	.size	gather, .-gather
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
