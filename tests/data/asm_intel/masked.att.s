	.file	"masked.c"
	.text
	.p2align 4
	.globl	masked
	.type	masked, @function
masked:
.LFB0:
	.cfi_startproc
	movq	%rsi, %rcx
	movq	%rdx, %rsi
	testq	%rdx, %rdx
	jle	.L30
	leaq	-1(%rdx), %rax
	cmpq	$6, %rax
	jbe	.L16
	movq	%rdx, %r8
	shrq	$3, %r8
	xorl	%eax, %eax
	xorl	%edx, %edx
	vxorps	%xmm1, %xmm1, %xmm1
	jmp	.L5
	.p2align 4,,10
	.p2align 3
.L4:
	incq	%rdx
	addq	$32, %rax
	cmpq	%rdx, %r8
	je	.L32
.L5:
	vmovups	(%rcx,%rax), %ymm0
	vcmpps	$14, %ymm1, %ymm0, %k1
	kortestb	%k1, %k1
	je	.L4
	vmulps	%ymm0, %ymm0, %ymm2{%k1}{z}
	incq	%rdx
	vmovups	%ymm2, (%rdi,%rax){%k1}
	addq	$32, %rax
	cmpq	%rdx, %r8
	jne	.L5
	.p2align 4,,10
	.p2align 3
.L32:
	movq	%rsi, %rax
	andq	$-8, %rax
	movq	%rax, %r8
	cmpq	%rax, %rsi
	je	.L33
	vzeroupper
.L3:
	movq	%rsi, %rdx
	subq	%r8, %rdx
	leaq	-1(%rdx), %r9
	cmpq	$2, %r9
	jbe	.L7
	vmovups	(%rcx,%r8,4), %xmm0
	vxorps	%xmm1, %xmm1, %xmm1
	vcmpps	$14, %xmm1, %xmm0, %k1
	kortestb	%k1, %k1
	jne	.L34
.L8:
	movq	%rdx, %r8
	andq	$-4, %r8
	addq	%r8, %rax
	andl	$3, %edx
	je	.L30
.L7:
	vmovss	(%rcx,%rax,4), %xmm0
	vxorps	%xmm1, %xmm1, %xmm1
	vcomiss	%xmm1, %xmm0
	leaq	0(,%rax,4), %rdx
	jbe	.L10
	vmulss	%xmm0, %xmm0, %xmm0
	vmovss	%xmm0, (%rdi,%rax,4)
.L10:
	leaq	1(%rax), %r8
	cmpq	%r8, %rsi
	jle	.L30
	vmovss	4(%rcx,%rdx), %xmm0
	vxorps	%xmm1, %xmm1, %xmm1
	vcomiss	%xmm1, %xmm0
	jbe	.L12
	vmulss	%xmm0, %xmm0, %xmm0
	vmovss	%xmm0, 4(%rdi,%rdx)
.L12:
	addq	$2, %rax
	cmpq	%rsi, %rax
	jge	.L30
	vmovss	8(%rcx,%rdx), %xmm0
	vxorps	%xmm1, %xmm1, %xmm1
	vcomiss	%xmm1, %xmm0
	jbe	.L30
	vmulss	%xmm0, %xmm0, %xmm0
	vmovss	%xmm0, 8(%rdi,%rdx)
.L30:
	ret
	.p2align 4,,10
	.p2align 3
.L34:
	vmulps	%xmm0, %xmm0, %xmm1{%k1}{z}
	vmovups	%xmm1, (%rdi,%r8,4){%k1}
	jmp	.L8
	.p2align 4,,10
	.p2align 3
.L33:
	vzeroupper
	ret
.L16:
	xorl	%r8d, %r8d
	xorl	%eax, %eax
	jmp	.L3
	.cfi_endproc
.LFE0:
	.size	masked, .-masked
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
