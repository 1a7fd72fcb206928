	# LLVM-MCA-BEGIN kerncraft
.L4:
	vaddsd	(%rax), %xmm0, %xmm0
	addq	$32, %rax
	vaddsd	-24(%rax), %xmm0, %xmm0
	vaddsd	-16(%rax), %xmm0, %xmm0
	vaddsd	-8(%rax), %xmm0, %xmm0
	cmpq	%rax, %rdx
	jne	.L4
	# LLVM-MCA-END
