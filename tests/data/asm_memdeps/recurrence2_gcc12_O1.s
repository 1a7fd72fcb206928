# a[i] = a[i-2]*s + b[i], gcc 12.2 -O1 -march=native: the store of a[i] is reloaded two
#   iterations later (distance 2): the chain mul + add + forwarding spans two iterations.
#   void recurrence2(long n, double s, double *restrict a, const double *restrict b)
#   { for (long i = 2; i < n; ++i) a[i] = a[i - 2] * s + b[i]; }
	.text
	.globl	recurrence2
	.type	recurrence2, @function
recurrence2:
.LFB0:
	cmpq	$2, %rdi
	jle	.L1
	movl	$2, %eax
.L3:
	vmulsd	-16(%rsi,%rax,8), %xmm0, %xmm1
	vaddsd	(%rdx,%rax,8), %xmm1, %xmm1
	vmovsd	%xmm1, (%rsi,%rax,8)
	incq	%rax
	cmpq	%rax, %rdi
	jne	.L3
.L1:
	ret
.LFE0:
	.size	recurrence2, .-recurrence2
	.section	.note.GNU-stack,"",@progbits
