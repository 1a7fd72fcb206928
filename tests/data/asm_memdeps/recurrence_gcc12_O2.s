# a[i] = a[i-1]*s + b[i], gcc 12.2 -O2 -march=native: a[i-1] stays in xmm1 (register chain,
#   no memory-carried dependency; the store is never reloaded).
#   command: gcc -O2 -march=native -S rec.c (source: see recurrence_gcc12_O1.s)
	.text
	.p2align 4
	.globl	recurrence
	.type	recurrence, @function
recurrence:
.LFB0:
	cmpq	$1, %rdi
	jle	.L5
	vmovsd	(%rsi), %xmm1
	movl	$1, %eax
	.p2align 4,,10
	.p2align 3
.L3:
	vfmadd213sd	(%rdx,%rax,8), %xmm0, %xmm1
	vmovsd	%xmm1, (%rsi,%rax,8)
	incq	%rax
	cmpq	%rax, %rdi
	jne	.L3
.L5:
	ret
.LFE0:
	.size	recurrence, .-recurrence
	.section	.note.GNU-stack,"",@progbits
