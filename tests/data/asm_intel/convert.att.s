	.file	"convert.c"
	.text
	.p2align 4
	.globl	convert
	.type	convert, @function
convert:
.LFB0:
	.cfi_startproc
	testq	%rcx, %rcx
	jle	.L14
	leaq	-1(%rcx), %rax
	cmpq	$6, %rax
	jbe	.L8
	movq	%rcx, %r8
	shrq	$3, %r8
	salq	$5, %r8
	xorl	%eax, %eax
	.p2align 4,,10
	.p2align 3
.L4:
	vmovdqu	(%rdx,%rax), %ymm0
	vcvtqq2pd	32(%rsi,%rax,2), %ymm1
	vextracti128	$0x1, %ymm0, %xmm2
	vcvtdq2pd	%xmm2, %ymm2
	vcvtdq2pd	%xmm0, %ymm0
	vaddpd	%ymm2, %ymm1, %ymm1
	vcvtqq2pd	(%rsi,%rax,2), %ymm2
	vaddpd	%ymm0, %ymm2, %ymm0
	vmovupd	%ymm1, 32(%rdi,%rax,2)
	vmovupd	%ymm0, (%rdi,%rax,2)
	addq	$32, %rax
	cmpq	%r8, %rax
	jne	.L4
	movq	%rcx, %rax
	andq	$-8, %rax
	movq	%rax, %r9
	cmpq	%rcx, %rax
	je	.L16
	vzeroupper
.L3:
	movq	%rcx, %r10
	subq	%r9, %r10
	leaq	-1(%r10), %r8
	cmpq	$2, %r8
	jbe	.L6
	vmovdqu	(%rdx,%r9,4), %xmm0
	leaq	0(,%r9,8), %r8
	leaq	(%rsi,%r8), %r11
	vpshufd	$238, %xmm0, %xmm2
	vcvtdq2pd	%xmm2, %xmm2
	vcvtqq2pd	16(%r11), %xmm1
	vcvtdq2pd	%xmm0, %xmm0
	vaddpd	%xmm2, %xmm1, %xmm1
	vcvtqq2pd	(%r11), %xmm2
	vaddpd	%xmm0, %xmm2, %xmm0
	addq	%rdi, %r8
	vmovupd	%xmm1, 16(%r8)
	vmovupd	%xmm0, (%r8)
	movq	%r10, %r8
	andq	$-4, %r8
	addq	%r8, %rax
	andl	$3, %r10d
	je	.L14
.L6:
	vxorps	%xmm0, %xmm0, %xmm0
	vcvtsi2sdq	(%rsi,%rax,8), %xmm0, %xmm1
	vcvtsi2sdl	(%rdx,%rax,4), %xmm0, %xmm2
	leaq	1(%rax), %r10
	leaq	0(,%rax,8), %r8
	leaq	0(,%rax,4), %r9
	vaddsd	%xmm2, %xmm1, %xmm1
	vmovsd	%xmm1, (%rdi,%rax,8)
	cmpq	%r10, %rcx
	jle	.L14
	vcvtsi2sdl	4(%rdx,%r9), %xmm0, %xmm1
	vcvtsi2sdq	8(%rsi,%r8), %xmm0, %xmm2
	addq	$2, %rax
	vaddsd	%xmm2, %xmm1, %xmm1
	vmovsd	%xmm1, 8(%rdi,%r8)
	cmpq	%rax, %rcx
	jle	.L14
	vcvtsi2sdl	8(%rdx,%r9), %xmm0, %xmm1
	vcvtsi2sdq	16(%rsi,%r8), %xmm0, %xmm0
	vaddsd	%xmm0, %xmm1, %xmm1
	vmovsd	%xmm1, 16(%rdi,%r8)
.L14:
	ret
	.p2align 4,,10
	.p2align 3
.L16:
	vzeroupper
	ret
.L8:
	xorl	%r9d, %r9d
	xorl	%eax, %eax
	jmp	.L3
	.cfi_endproc
.LFE0:
	.size	convert, .-convert
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
