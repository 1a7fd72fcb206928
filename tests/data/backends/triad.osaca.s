	# OSACA-BEGIN
.L4:
	vmovapd	0(%r13,%rax), %ymm1
	vfmadd213pd	(%r14,%rax), %ymm2, %ymm1
	vmovapd	%ymm1, (%r15,%rax)
	addq	$32, %rax
	cmpq	%rdx, %rax
	jne	.L4
	# OSACA-END
