# Gauss-Seidel 2D 5-point (kernels/gs-2d-5pt.c), wrapped by tests/support/kernel_asm.py
#   (void kernel(long M, long N, double s, double (*restrict a)[N])), gcc 12.2 -O1 -march=native.
#   In place: a[j][i-1] (vmovsd -8(%rdx,%rax)) is the value stored as a[j][i] one iteration
#   earlier (vmovsd %xmm0, (%rdx,%rax)), so the whole update chain is loop-carried through memory.
	.text
	.globl	kernel
	.type	kernel, @function
kernel:
.LFB0:
	pushq	%r12
	pushq	%rbp
	pushq	%rbx
	subq	$16, %rsp
	vmovsd	%xmm0, 8(%rsp)
	movq	%rdx, %rbp
	cmpq	$2, %rdi
	jle	.L2
	movq	%rdi, %r11
	movq	%rsi, %rbx
	vmovsd	%xmm0, %xmm0, %xmm1
	leaq	0(,%rsi,8), %r10
	leaq	(%rdx,%r10), %r9
	movq	%rsi, %r12
	negq	%r12
	salq	$3, %r12
	leaq	-8(%r10), %rdi
	movl	$2, %r8d
	jmp	.L3
.L5:
	movq	%r9, %rdx
	leaq	(%r9,%r12), %rsi
	movslq	%r8d, %rcx
	imulq	%r10, %rcx
	addq	%rbp, %rcx
	movl	$8, %eax
.L4:
	vmovsd	-8(%rdx,%rax), %xmm0
	vaddsd	8(%rdx,%rax), %xmm0, %xmm0
	vaddsd	(%rsi,%rax), %xmm0, %xmm0
	vaddsd	(%rcx,%rax), %xmm0, %xmm0
	vmulsd	%xmm1, %xmm0, %xmm0
	vmovsd	%xmm0, (%rdx,%rax)
	addq	$8, %rax
	cmpq	%rax, %rdi
	jne	.L4
.L6:
	incl	%r8d
	addq	%r10, %r9
	cmpl	%r11d, %r8d
	je	.L2
.L3:
	cmpq	$2, %rbx
	jg	.L5
	jmp	.L6
.L2:
	movq	%rbp, %rdi
	call	dummy@PLT
	leaq	8(%rsp), %rdi
	call	dummy@PLT
	addq	$16, %rsp
	popq	%rbx
	popq	%rbp
	popq	%r12
	ret
.LFE0:
	.size	kernel, .-kernel
	.section	.note.GNU-stack,"",@progbits
