	.file	"intsext.c"
	.intel_syntax noprefix
	.text
	.p2align 4
	.globl	intsext
	.type	intsext, @function
intsext:
.LFB0:
	.cfi_startproc
	test	rcx, rcx
	jle	.L16
	lea	rax, -1[rcx]
	mov	r8, rcx
	cmp	rax, 14
	jbe	.L8
	shr	rcx, 4
	sal	rcx, 5
	xor	eax, eax
	.p2align 4,,10
	.p2align 3
.L4:
	vmovdqu	ymm1, YMMWORD PTR 32[rsi+rax*2]
	vmovdqu16	ymm2, YMMWORD PTR [rdx+rax]
	vpslld	ymm0, ymm1, 1
	vpaddd	ymm0, ymm0, ymm1
	vextracti128	xmm1, ymm2, 0x1
	vpmovsxwd	ymm1, xmm1
	vmovdqu	ymm3, YMMWORD PTR [rsi+rax*2]
	vpaddd	ymm0, ymm0, ymm1
	vpsrad	ymm1, YMMWORD PTR 32[rdi+rax*2], 2
	vpmovsxwd	ymm2, xmm2
	vpaddd	ymm0, ymm0, ymm1
	vpslld	ymm1, ymm3, 1
	vpaddd	ymm1, ymm1, ymm3
	vpaddd	ymm1, ymm1, ymm2
	vpsrad	ymm2, YMMWORD PTR [rdi+rax*2], 2
	vmovdqu	YMMWORD PTR 32[rdi+rax*2], ymm0
	vpaddd	ymm1, ymm1, ymm2
	vmovdqu	YMMWORD PTR [rdi+rax*2], ymm1
	add	rax, 32
	cmp	rax, rcx
	jne	.L4
	mov	rax, r8
	and	rax, -16
	mov	r9, rax
	cmp	rax, r8
	je	.L19
	vzeroupper
.L3:
	mov	r10, r8
	sub	r10, r9
	lea	rcx, -1[r10]
	cmp	rcx, 6
	jbe	.L6
	lea	rcx, 0[0+r9*4]
	lea	r11, [rsi+rcx]
	vmovdqu	xmm1, XMMWORD PTR 16[r11]
	vmovdqu16	xmm2, XMMWORD PTR [rdx+r9*2]
	vpslld	xmm0, xmm1, 1
	vpaddd	xmm0, xmm0, xmm1
	vpsrldq	xmm1, xmm2, 8
	add	rcx, rdi
	vpmovsxwd	xmm1, xmm1
	vmovdqu	xmm3, XMMWORD PTR [r11]
	vpaddd	xmm0, xmm0, xmm1
	vpsrad	xmm1, XMMWORD PTR 16[rcx], 2
	vpmovsxwd	xmm2, xmm2
	vpaddd	xmm0, xmm0, xmm1
	vpslld	xmm1, xmm3, 1
	vpaddd	xmm1, xmm1, xmm3
	vpaddd	xmm1, xmm1, xmm2
	vpsrad	xmm2, XMMWORD PTR [rcx], 2
	vmovdqu	XMMWORD PTR 16[rcx], xmm0
	vpaddd	xmm1, xmm1, xmm2
	vmovdqu	XMMWORD PTR [rcx], xmm1
	mov	rcx, r10
	and	rcx, -8
	add	rax, rcx
	and	r10d, 7
	je	.L16
.L6:
	push	rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	mov	r9d, DWORD PTR [rsi+rax*4]
	lea	rcx, 0[0+rax*4]
	mov	rbp, rsp
	.cfi_def_cfa_register 6
	push	r14
	lea	r9d, [r9+r9*2]
	.cfi_offset 14, -24
	mov	r14d, 2
	push	rbx
	.cfi_offset 3, -32
	lea	rbx, [rdi+rcx]
	lea	r10, [rax+rax]
	movsx	r11d, WORD PTR [rdx+rax*2]
	add	r9d, r11d
	sarx	r11d, DWORD PTR [rbx], r14d
	add	r9d, r11d
	mov	DWORD PTR [rbx], r9d
	lea	r9, 1[rax]
	cmp	r8, r9
	jle	.L14
	mov	r11d, DWORD PTR 4[rsi+rcx]
	movsx	r9d, WORD PTR 2[rdx+r10]
	lea	r11d, [r11+r11*2]
	lea	rbx, 4[rdi+rcx]
	add	r9d, r11d
	sarx	r11d, DWORD PTR [rbx], r14d
	add	r9d, r11d
	mov	DWORD PTR [rbx], r9d
	lea	r9, 2[rax]
	cmp	r8, r9
	jle	.L14
	mov	r9d, DWORD PTR 8[rsi+rcx]
	movsx	r11d, WORD PTR 4[rdx+r10]
	lea	r9d, [r9+r9*2]
	lea	rbx, 8[rdi+rcx]
	add	r9d, r11d
	sarx	r11d, DWORD PTR [rbx], r14d
	add	r9d, r11d
	mov	DWORD PTR [rbx], r9d
	lea	r9, 3[rax]
	cmp	r8, r9
	jle	.L14
	mov	r9d, DWORD PTR 12[rsi+rcx]
	movsx	r11d, WORD PTR 6[rdx+r10]
	lea	r9d, [r9+r9*2]
	lea	rbx, 12[rdi+rcx]
	add	r9d, r11d
	sarx	r11d, DWORD PTR [rbx], r14d
	add	r9d, r11d
	mov	DWORD PTR [rbx], r9d
	lea	r9, 4[rax]
	cmp	r8, r9
	jle	.L14
	mov	r9d, DWORD PTR 16[rsi+rcx]
	movsx	r11d, WORD PTR 8[rdx+r10]
	lea	r9d, [r9+r9*2]
	lea	rbx, 16[rdi+rcx]
	add	r9d, r11d
	sarx	r11d, DWORD PTR [rbx], r14d
	add	r9d, r11d
	mov	DWORD PTR [rbx], r9d
	lea	r9, 5[rax]
	cmp	r8, r9
	jle	.L14
	mov	r9d, DWORD PTR 20[rsi+rcx]
	movsx	r11d, WORD PTR 10[rdx+r10]
	lea	r9d, [r9+r9*2]
	lea	rbx, 20[rdi+rcx]
	add	r9d, r11d
	add	rax, 6
	sarx	r11d, DWORD PTR [rbx], r14d
	add	r9d, r11d
	mov	DWORD PTR [rbx], r9d
	cmp	r8, rax
	jle	.L14
	mov	eax, DWORD PTR 24[rsi+rcx]
	movsx	edx, WORD PTR 12[rdx+r10]
	lea	eax, [rax+rax*2]
	lea	rdi, 24[rdi+rcx]
	add	eax, edx
	sarx	edx, DWORD PTR [rdi], r14d
	add	eax, edx
	mov	DWORD PTR [rdi], eax
.L14:
	pop	rbx
	pop	r14
	pop	rbp
	.cfi_def_cfa 7, 8
	ret
	.p2align 4,,10
	.p2align 3
.L16:
	.cfi_restore 3
	.cfi_restore 6
	.cfi_restore 14
	ret
.L8:
	xor	r9d, r9d
	xor	eax, eax
	jmp	.L3
.L19:
	vzeroupper
	ret
	.cfi_endproc
.LFE0:
	.size	intsext, .-intsext
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
