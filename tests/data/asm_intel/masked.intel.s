	.file	"masked.c"
	.intel_syntax noprefix
	.text
	.p2align 4
	.globl	masked
	.type	masked, @function
masked:
.LFB0:
	.cfi_startproc
	mov	rcx, rsi
	mov	rsi, rdx
	test	rdx, rdx
	jle	.L30
	lea	rax, -1[rdx]
	cmp	rax, 6
	jbe	.L16
	mov	r8, rdx
	shr	r8, 3
	xor	eax, eax
	xor	edx, edx
	vxorps	xmm1, xmm1, xmm1
	jmp	.L5
	.p2align 4,,10
	.p2align 3
.L4:
	inc	rdx
	add	rax, 32
	cmp	r8, rdx
	je	.L32
.L5:
	vmovups	ymm0, YMMWORD PTR [rcx+rax]
	vcmpps	k1, ymm0, ymm1, 14
	kortestb	k1, k1
	je	.L4
	vmulps	ymm2{k1}{z}, ymm0, ymm0
	inc	rdx
	vmovups	YMMWORD PTR [rdi+rax]{k1}, ymm2
	add	rax, 32
	cmp	r8, rdx
	jne	.L5
	.p2align 4,,10
	.p2align 3
.L32:
	mov	rax, rsi
	and	rax, -8
	mov	r8, rax
	cmp	rsi, rax
	je	.L33
	vzeroupper
.L3:
	mov	rdx, rsi
	sub	rdx, r8
	lea	r9, -1[rdx]
	cmp	r9, 2
	jbe	.L7
	vmovups	xmm0, XMMWORD PTR [rcx+r8*4]
	vxorps	xmm1, xmm1, xmm1
	vcmpps	k1, xmm0, xmm1, 14
	kortestb	k1, k1
	jne	.L34
.L8:
	mov	r8, rdx
	and	r8, -4
	add	rax, r8
	and	edx, 3
	je	.L30
.L7:
	vmovss	xmm0, DWORD PTR [rcx+rax*4]
	vxorps	xmm1, xmm1, xmm1
	vcomiss	xmm0, xmm1
	lea	rdx, 0[0+rax*4]
	jbe	.L10
	vmulss	xmm0, xmm0, xmm0
	vmovss	DWORD PTR [rdi+rax*4], xmm0
.L10:
	lea	r8, 1[rax]
	cmp	rsi, r8
	jle	.L30
	vmovss	xmm0, DWORD PTR 4[rcx+rdx]
	vxorps	xmm1, xmm1, xmm1
	vcomiss	xmm0, xmm1
	jbe	.L12
	vmulss	xmm0, xmm0, xmm0
	vmovss	DWORD PTR 4[rdi+rdx], xmm0
.L12:
	add	rax, 2
	cmp	rax, rsi
	jge	.L30
	vmovss	xmm0, DWORD PTR 8[rcx+rdx]
	vxorps	xmm1, xmm1, xmm1
	vcomiss	xmm0, xmm1
	jbe	.L30
	vmulss	xmm0, xmm0, xmm0
	vmovss	DWORD PTR 8[rdi+rdx], xmm0
.L30:
	ret
	.p2align 4,,10
	.p2align 3
.L34:
	vmulps	xmm1{k1}{z}, xmm0, xmm0
	vmovups	XMMWORD PTR [rdi+r8*4]{k1}, xmm1
	jmp	.L8
	.p2align 4,,10
	.p2align 3
.L33:
	vzeroupper
	ret
.L16:
	xor	r8d, r8d
	xor	eax, eax
	jmp	.L3
	.cfi_endproc
.LFE0:
	.size	masked, .-masked
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
