	.file	"sum.c"
	.text
	.p2align 4
	.globl	sum
	.type	sum, @function
sum:
.LFB0:
	.cfi_startproc
	movq	%rdi, %rcx
	testq	%rsi, %rsi
	jle	.L7
	leaq	-1(%rsi), %rax
	cmpq	$2, %rax
	jbe	.L8
	movq	%rsi, %rdx
	shrq	$2, %rdx
	salq	$5, %rdx
	movq	%rdi, %rax
	addq	%rdi, %rdx
	vxorpd	%xmm0, %xmm0, %xmm0
	.p2align 4,,10
	.p2align 3
.L4:
	vaddsd	(%rax), %xmm0, %xmm0
	addq	$32, %rax
	vaddsd	-24(%rax), %xmm0, %xmm0
	vaddsd	-16(%rax), %xmm0, %xmm0
	vaddsd	-8(%rax), %xmm0, %xmm0
	cmpq	%rax, %rdx
	jne	.L4
	movq	%rsi, %rax
	andq	$-4, %rax
	testb	$3, %sil
	je	.L11
.L3:
	leaq	1(%rax), %rdi
	vaddsd	(%rcx,%rax,8), %xmm0, %xmm0
	leaq	0(,%rax,8), %rdx
	cmpq	%rdi, %rsi
	jle	.L1
	addq	$2, %rax
	vaddsd	8(%rcx,%rdx), %xmm0, %xmm0
	cmpq	%rax, %rsi
	jle	.L1
	vaddsd	16(%rcx,%rdx), %xmm0, %xmm0
	ret
	.p2align 4,,10
	.p2align 3
.L7:
	vxorpd	%xmm0, %xmm0, %xmm0
.L1:
	ret
	.p2align 4,,10
	.p2align 3
.L11:
	ret
.L8:
	xorl	%eax, %eax
	vxorpd	%xmm0, %xmm0, %xmm0
	jmp	.L3
	.cfi_endproc
.LFE0:
	.size	sum, .-sum
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
