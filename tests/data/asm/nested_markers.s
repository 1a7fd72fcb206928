# IACA byte markers around LLVM-MCA comment markers around a loop (hand-written).
	.text
	.globl	kernel
kernel:
	xorl	%eax, %eax
	movl	$111, %ebx	# IACA START MARKER
	.byte	100,103,144	# IACA START MARKER
	vxorpd	%xmm1, %xmm1, %xmm1
# LLVM-MCA-BEGIN triad
.L3:
	vmovupd	(%rsi,%rax), %ymm0
	vfmadd213pd	(%rdx,%rax), %ymm2, %ymm0
	vmovupd	%ymm0, (%rdi,%rax)
	addq	$32, %rax
	cmpq	%rax, %rcx
	jne	.L3
# LLVM-MCA-END triad
	movl	$222, %ebx	# IACA END MARKER
	.byte	100,103,144	# IACA END MARKER
	vzeroupper
	ret
