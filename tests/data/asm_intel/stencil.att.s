	.file	"stencil.c"
	.text
	.p2align 4
	.globl	stencil
	.type	stencil, @function
stencil:
.LFB0:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	leaq	-1(%rcx), %rax
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%r15
	pushq	%r14
	pushq	%r13
	pushq	%r12
	pushq	%rbx
	andq	$-32, %rsp
	.cfi_offset 15, -24
	.cfi_offset 14, -32
	.cfi_offset 13, -40
	.cfi_offset 12, -48
	.cfi_offset 3, -56
	movq	%rax, -8(%rsp)
	cmpq	$2, %rcx
	jle	.L25
	movq	%rdx, %r14
	cmpq	$2, %rdx
	jle	.L25
	leaq	-2(%rdx), %rax
	leaq	-3(%rdx), %rbx
	movq	%rbx, -16(%rsp)
	movq	%rax, %rbx
	andq	$-4, %rbx
	movq	%rbx, -64(%rsp)
	incq	%rbx
	movq	%rbx, -56(%rsp)
	leaq	16(%rsi), %rbx
	movq	%rdi, %r9
	movq	%rbx, -24(%rsp)
	leaq	8(%rsi), %rbx
	movq	%rax, %r13
	movq	%rbx, -32(%rsp)
	andl	$3, %eax
	leaq	8(%r9), %rbx
	vmovsd	.LC1(%rip), %xmm2
	movq	%rbx, -40(%rsp)
	movq	%rax, -48(%rsp)
	shrq	$2, %r13
	leaq	(%rdx,%rdx), %r8
	salq	$5, %r13
	movq	%rdx, %rdi
	xorl	%ecx, %ecx
	movl	$1, %r15d
	vmovddup	%xmm2, %xmm3
	vbroadcastsd	%xmm2, %ymm1
	.p2align 4,,10
	.p2align 3
.L4:
	incq	%r15
	cmpq	$2, -16(%rsp)
	jbe	.L28
	movq	-24(%rsp), %rax
	leaq	0(,%rdi,8), %rdx
	leaq	(%rax,%rdx), %rbx
	movq	-32(%rsp), %rax
	leaq	(%rdx,%rsi), %r12
	leaq	(%rax,%rcx,8), %r11
	leaq	(%rax,%r8,8), %r10
	movq	-40(%rsp), %rax
	addq	%rax, %rdx
	xorl	%eax, %eax
	.p2align 4,,10
	.p2align 3
.L5:
	vmovupd	(%rbx,%rax), %ymm4
	vaddpd	(%r12,%rax), %ymm4, %ymm0
	vaddpd	(%r11,%rax), %ymm0, %ymm0
	vaddpd	(%r10,%rax), %ymm0, %ymm0
	vmulpd	%ymm1, %ymm0, %ymm0
	vmovupd	%ymm0, (%rdx,%rax)
	addq	$32, %rax
	cmpq	%rax, %r13
	jne	.L5
	cmpq	$0, -48(%rsp)
	je	.L6
	movq	-64(%rsp), %rdx
	movq	-56(%rsp), %rax
.L9:
	movq	%r14, %r10
	subq	%rdx, %r10
	leaq	-2(%r10), %r11
	cmpq	$3, %r10
	je	.L7
	leaq	(%rdi,%rdx), %r10
	vmovupd	16(%rsi,%r10,8), %xmm5
	leaq	1(%rcx,%rdx), %rbx
	vaddpd	(%rsi,%r10,8), %xmm5, %xmm0
	leaq	1(%rdx,%r8), %rdx
	vaddpd	(%rsi,%rbx,8), %xmm0, %xmm0
	vaddpd	(%rsi,%rdx,8), %xmm0, %xmm0
	vmulpd	%xmm3, %xmm0, %xmm0
	vmovupd	%xmm0, 8(%r9,%r10,8)
	testb	$1, %r11b
	je	.L6
	andq	$-2, %r11
	addq	%r11, %rax
.L7:
	leaq	(%rdi,%rax), %rdx
	vmovsd	-8(%rsi,%rdx,8), %xmm0
	leaq	(%rcx,%rax), %r10
	vaddsd	8(%rsi,%rdx,8), %xmm0, %xmm0
	addq	%r8, %rax
	vaddsd	(%rsi,%r10,8), %xmm0, %xmm0
	vaddsd	(%rsi,%rax,8), %xmm0, %xmm0
	vmulsd	%xmm2, %xmm0, %xmm0
	vmovsd	%xmm0, (%r9,%rdx,8)
.L6:
	addq	%r14, %rdi
	addq	%r14, %rcx
	addq	%r14, %r8
	cmpq	%r15, -8(%rsp)
	jne	.L4
	vzeroupper
.L25:
	leaq	-40(%rbp), %rsp
	popq	%rbx
	popq	%r12
	popq	%r13
	popq	%r14
	popq	%r15
	popq	%rbp
	.cfi_remember_state
	.cfi_def_cfa 7, 8
	ret
.L28:
	.cfi_restore_state
	xorl	%edx, %edx
	movl	$1, %eax
	jmp	.L9
	.cfi_endproc
.LFE0:
	.size	stencil, .-stencil
	.section	.rodata.cst8,"aM",@progbits,8
	.align 8
.LC1:
	.long	0
	.long	1070596096
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
