# a[i] = a[i-1]*s + b[i], gcc 12.2 -O2 -fno-tree-vectorize -march=native: separate reload
#   of a[i-1] (vmovsd), FMA, store a[i]: the chain runs through memory (distance 1).
#   command: gcc -O2 -fno-tree-vectorize -march=native -S rec.c (source: see recurrence_gcc12_O1.s)
	.text
	.p2align 4
	.globl	recurrence
	.type	recurrence, @function
recurrence:
.LFB0:
	cmpq	$1, %rdi
	jle	.L5
	movl	$1, %eax
	.p2align 4,,10
	.p2align 3
.L3:
	vmovsd	-8(%rsi,%rax,8), %xmm1
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
