	.file	"gather.c"
	.intel_syntax noprefix
	.text
	.p2align 4
	.globl	gather
	.type	gather, @function
gather:
.LFB0:
	.cfi_startproc
	mov	rcx, rdi
	mov	rdi, rsi
	mov	esi, edx
	test	edx, edx
	jle	.L9
	lea	eax, -1[rdx]
	cmp	eax, 6
	jbe	.L10
	shr	edx, 3
	sal	rdx, 5
	mov	rax, rdi
	add	rdx, rdi
	vpxor	xmm1, xmm1, xmm1
	kxnorb	k1, k1, k1
	.p2align 4,,10
	.p2align 3
.L4:
	vmovdqu	ymm3, YMMWORD PTR [rax]
	kmovb	k2, k1
	vpgatherdd	ymm0{k2}, [rcx+ymm3*4]
	vpmovsxdq	ymm2, xmm0
	vextracti128	xmm0, ymm0, 0x1
	vpaddq	ymm1, ymm2, ymm1
	vpmovsxdq	ymm0, xmm0
	add	rax, 32
	vpaddq	ymm1, ymm0, ymm1
	cmp	rdx, rax
	jne	.L4
	vmovdqa	xmm2, xmm1
	vextracti64x2	xmm1, ymm1, 0x1
	vpaddq	xmm2, xmm2, xmm1
	vpsrldq	xmm0, xmm2, 8
	mov	edx, esi
	vpaddq	xmm0, xmm2, xmm0
	and	edx, -8
	vmovq	rax, xmm0
	mov	r8d, edx
	cmp	esi, edx
	je	.L17
	vzeroupper
.L3:
	mov	r9d, esi
	sub	r9d, r8d
	lea	r10d, -1[r9]
	cmp	r10d, 2
	jbe	.L7
	vmovdqu	xmm1, XMMWORD PTR [rdi+r8*4]
	kxnorb	k3, k3, k3
	vpgatherdd	xmm0{k3}, [rcx+xmm1*4]
	vpmovsxdq	xmm1, xmm0
	vpsrldq	xmm0, xmm0, 8
	vpaddq	xmm1, xmm1, xmm2
	vpmovsxdq	xmm0, xmm0
	vpaddq	xmm0, xmm0, xmm1
	mov	r8d, r9d
	and	r8d, -4
	vpsrldq	xmm1, xmm0, 8
	vpaddq	xmm0, xmm0, xmm1
	add	edx, r8d
	and	r9d, 3
	vmovq	rax, xmm0
	je	.L1
.L7:
	movsx	r8, edx
	lea	r9, 0[0+r8*4]
	movsx	r8, DWORD PTR [rdi+r8*4]
	movsx	r8, DWORD PTR [rcx+r8*4]
	add	rax, r8
	lea	r8d, 1[rdx]
	cmp	esi, r8d
	jle	.L1
	movsx	r8, DWORD PTR 4[rdi+r9]
	add	edx, 2
	movsx	r8, DWORD PTR [rcx+r8*4]
	add	rax, r8
	cmp	esi, edx
	jle	.L1
	movsx	rdx, DWORD PTR 8[rdi+r9]
	movsx	rdx, DWORD PTR [rcx+rdx*4]
	add	rax, rdx
	ret
	.p2align 4,,10
	.p2align 3
.L9:
	xor	eax, eax
.L1:
	ret
	.p2align 4,,10
	.p2align 3
.L17:
	vzeroupper
	ret
.L10:
	vpxor	xmm2, xmm2, xmm2
	xor	r8d, r8d
	xor	edx, edx
	xor	eax, eax
	jmp	.L3
	.cfi_endproc
.LFE0:
	.size	gather, .-gather
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
