	# OSACA-BEGIN
.L3:
	vaddsd	(%rdi,%rax,8), %xmm0, %xmm0
	vfoobarpd %ymm1, %ymm2, %ymm3
	vpdpbusd %zmm1, %zmm2, %zmm3
	incq	%rax
	cmpq	%rax, %rsi
	jne	.L3
	# OSACA-END
