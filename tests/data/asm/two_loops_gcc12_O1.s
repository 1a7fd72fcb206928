	.file	"two.c"
	.text
	.globl	kernel
	.type	kernel, @function
kernel:
	testl	%esi, %esi
	jle	.L1
	movslq	%edi, %rdx
	salq	$3, %rdx
	movl	$0, %r10d
	leaq	a(%rip), %r9
	leaq	c(%rip), %r8
	leaq	b(%rip), %rcx
	jmp	.L3
.L4:
	movapd	%xmm0, %xmm1
	mulsd	(%r8,%rax), %xmm1
	addsd	(%rcx,%rax), %xmm1
	movsd	%xmm1, (%r9,%rax)
	addq	$8, %rax
	cmpq	%rax, %rdx
	jne	.L4
.L5:
	addl	$1, %r10d
	cmpl	%r10d, %esi
	je	.L1
.L3:
	movl	$0, %eax
	testl	%edi, %edi
	jg	.L4
	jmp	.L5
.L1:
	ret
	.size	kernel, .-kernel
	.globl	c
	.bss
	.align 32
	.type	c, @object
	.size	c, 8000
c:
	.zero	8000
	.globl	b
	.align 32
	.type	b, @object
	.size	b, 8000
b:
	.zero	8000
	.globl	a
	.align 32
	.type	a, @object
	.size	a, 8000
a:
	.zero	8000
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
