	.intel_syntax noprefix
	.text
	.globl	kernel
	.type	kernel, @function
kernel:
	xor	eax, eax
	vxorpd	xmm0, xmm0, xmm0
	mov	ebx, 111		# IACA start marker
	.byte	100,103,144
.L2:
	vaddpd	ymm0, ymm0, YMMWORD PTR [rdi+rax*8]
	add	rax, 4
	cmp	rax, rsi
	jne	.L2
	mov	ebx, 222		# IACA end marker
	.byte	100,103,144
	ret
	.size	kernel, .-kernel
