	.file	"convert.c"
	.intel_syntax noprefix
	.text
	.p2align 4
	.globl	convert
	.type	convert, @function
convert:
.LFB0:
	.cfi_startproc
	test	rcx, rcx
	jle	.L14
	lea	rax, -1[rcx]
	cmp	rax, 6
	jbe	.L8
	mov	r8, rcx
	shr	r8, 3
	sal	r8, 5
	xor	eax, eax
	.p2align 4,,10
	.p2align 3
.L4:
	vmovdqu	ymm0, YMMWORD PTR [rdx+rax]
	vcvtqq2pd	ymm1, YMMWORD PTR 32[rsi+rax*2]
	vextracti128	xmm2, ymm0, 0x1
	vcvtdq2pd	ymm2, xmm2
	vcvtdq2pd	ymm0, xmm0
	vaddpd	ymm1, ymm1, ymm2
	vcvtqq2pd	ymm2, YMMWORD PTR [rsi+rax*2]
	vaddpd	ymm0, ymm2, ymm0
	vmovupd	YMMWORD PTR 32[rdi+rax*2], ymm1
	vmovupd	YMMWORD PTR [rdi+rax*2], ymm0
	add	rax, 32
	cmp	rax, r8
	jne	.L4
	mov	rax, rcx
	and	rax, -8
	mov	r9, rax
	cmp	rax, rcx
	je	.L16
	vzeroupper
.L3:
	mov	r10, rcx
	sub	r10, r9
	lea	r8, -1[r10]
	cmp	r8, 2
	jbe	.L6
	vmovdqu	xmm0, XMMWORD PTR [rdx+r9*4]
	lea	r8, 0[0+r9*8]
	lea	r11, [rsi+r8]
	vpshufd	xmm2, xmm0, 238
	vcvtdq2pd	xmm2, xmm2
	vcvtqq2pd	xmm1, XMMWORD PTR 16[r11]
	vcvtdq2pd	xmm0, xmm0
	vaddpd	xmm1, xmm1, xmm2
	vcvtqq2pd	xmm2, XMMWORD PTR [r11]
	vaddpd	xmm0, xmm2, xmm0
	add	r8, rdi
	vmovupd	XMMWORD PTR 16[r8], xmm1
	vmovupd	XMMWORD PTR [r8], xmm0
	mov	r8, r10
	and	r8, -4
	add	rax, r8
	and	r10d, 3
	je	.L14
.L6:
	vxorps	xmm0, xmm0, xmm0
	vcvtsi2sd	xmm1, xmm0, QWORD PTR [rsi+rax*8]
	vcvtsi2sd	xmm2, xmm0, DWORD PTR [rdx+rax*4]
	lea	r10, 1[rax]
	lea	r8, 0[0+rax*8]
	lea	r9, 0[0+rax*4]
	vaddsd	xmm1, xmm1, xmm2
	vmovsd	QWORD PTR [rdi+rax*8], xmm1
	cmp	rcx, r10
	jle	.L14
	vcvtsi2sd	xmm1, xmm0, DWORD PTR 4[rdx+r9]
	vcvtsi2sd	xmm2, xmm0, QWORD PTR 8[rsi+r8]
	add	rax, 2
	vaddsd	xmm1, xmm1, xmm2
	vmovsd	QWORD PTR 8[rdi+r8], xmm1
	cmp	rcx, rax
	jle	.L14
	vcvtsi2sd	xmm1, xmm0, DWORD PTR 8[rdx+r9]
	vcvtsi2sd	xmm0, xmm0, QWORD PTR 16[rsi+r8]
	vaddsd	xmm1, xmm1, xmm0
	vmovsd	QWORD PTR 16[rdi+r8], xmm1
.L14:
	ret
	.p2align 4,,10
	.p2align 3
.L16:
	vzeroupper
	ret
.L8:
	xor	r9d, r9d
	xor	eax, eax
	jmp	.L3
	.cfi_endproc
.LFE0:
	.size	convert, .-convert
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
