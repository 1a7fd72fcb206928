# a[i] = a[i-1]*s + b[i] (recurrence through memory), gcc 12.2 -O1 -march=native (Ice Lake-SP host)
#   source: rec.c below; command: gcc -O1 -march=native -S rec.c
#   void recurrence(long n, double s, double *restrict a, const double *restrict b)
#   { for (long i = 1; i < n; ++i) a[i] = a[i - 1] * s + b[i]; }
# The store of a[i] is reloaded as a[i-1] one iteration later (distance 1).
	.text
	.globl	recurrence
	.type	recurrence, @function
recurrence:
.LFB0:
	cmpq	$1, %rdi
	jle	.L1
	movl	$1, %eax
.L3:
	vmulsd	-8(%rsi,%rax,8), %xmm0, %xmm1
	vaddsd	(%rdx,%rax,8), %xmm1, %xmm1
	vmovsd	%xmm1, (%rsi,%rax,8)
	incq	%rax
	cmpq	%rax, %rdi
	jne	.L3
.L1:
	ret
.LFE0:
	.size	recurrence, .-recurrence
	.section	.note.GNU-stack,"",@progbits
