# a[i] = s*a[i] (in-place update), gcc 12.2 -O1 -march=native: load and store of the same
#   element in one iteration, the next iteration touches the next element: no memory-carried
#   dependency (a false positive would show up as an LCD > 1 cy).
#   void update(long n, double s, double *restrict a) { for (long i = 0; i < n; ++i) a[i] = s * a[i]; }
	.text
	.globl	update
	.type	update, @function
update:
.LFB0:
	testq	%rdi, %rdi
	jle	.L1
	movq	%rsi, %rax
	leaq	(%rsi,%rdi,8), %rdx
.L3:
	vmulsd	(%rax), %xmm0, %xmm1
	vmovsd	%xmm1, (%rax)
	addq	$8, %rax
	cmpq	%rdx, %rax
	jne	.L3
.L1:
	ret
.LFE0:
	.size	update, .-update
	.section	.note.GNU-stack,"",@progbits
