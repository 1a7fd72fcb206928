	# OSACA-BEGIN
.L5:
	vmovupd	(%r9,%rax), %ymm7
	vaddpd	(%r14,%rax), %ymm7, %ymm0
	vaddpd	0(%r13,%rax), %ymm0, %ymm0
	vaddpd	(%r12,%rax), %ymm0, %ymm0
	vaddpd	(%rbx,%rax), %ymm0, %ymm0
	vaddpd	(%r11,%rax), %ymm0, %ymm0
	vmulpd	%ymm1, %ymm0, %ymm0
	vfmadd231pd	(%r15,%rax), %ymm2, %ymm0
	vmovupd	%ymm0, (%rdx,%rax)
	addq	$32, %rax
	cmpq	%rax, 160(%rsp)
	jne	.L5
	# OSACA-END
