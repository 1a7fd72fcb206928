	.file	"triad.c"
	.text
	.p2align 4
	.globl	triad
	.type	triad, @function
triad:
.LFB0:
	.cfi_startproc
	testq	%rcx, %rcx
	jle	.L17
	leaq	-1(%rcx), %rax
	cmpq	$2, %rax
	jbe	.L8
	movq	%rcx, %r8
	shrq	$2, %r8
	vbroadcastsd	%xmm0, %ymm2
	salq	$5, %r8
	xorl	%eax, %eax
	.p2align 4,,10
	.p2align 3
.L4:
	vmovupd	(%rdx,%rax), %ymm1
	vfmadd213pd	(%rsi,%rax), %ymm2, %ymm1
	vmovupd	%ymm1, (%rdi,%rax)
	addq	$32, %rax
	cmpq	%r8, %rax
	jne	.L4
	movq	%rcx, %rax
	andq	$-4, %rax
	movq	%rax, %r8
	cmpq	%rax, %rcx
	je	.L19
	vzeroupper
.L3:
	subq	%r8, %rcx
	cmpq	$1, %rcx
	je	.L6
	vmovupd	(%rsi,%r8,8), %xmm4
	vmovddup	%xmm0, %xmm1
	vfmadd132pd	(%rdx,%r8,8), %xmm4, %xmm1
	vmovupd	%xmm1, (%rdi,%r8,8)
	testb	$1, %cl
	je	.L17
	andq	$-2, %rcx
	addq	%rcx, %rax
.L6:
	vmovsd	(%rsi,%rax,8), %xmm3
	vfmadd132sd	(%rdx,%rax,8), %xmm3, %xmm0
	vmovsd	%xmm0, (%rdi,%rax,8)
.L17:
	ret
	.p2align 4,,10
	.p2align 3
.L19:
	vzeroupper
	ret
.L8:
	xorl	%r8d, %r8d
	xorl	%eax, %eax
	jmp	.L3
	.cfi_endproc
.LFE0:
	.size	triad, .-triad
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
