	# LLVM-MCA-BEGIN kerncraft
.L5:
	vmovupd	(%r10,%rax), %ymm4
	vaddpd	(%r11,%rax), %ymm4, %ymm0
	vaddpd	(%r9,%rax), %ymm0, %ymm0
	vaddpd	(%r8,%rax), %ymm0, %ymm0
	vmulpd	%ymm1, %ymm0, %ymm0
	vmovupd	%ymm0, (%rcx,%rax)
	addq	$32, %rax
	cmpq	%rax, %r14
	jne	.L5
	# LLVM-MCA-END
