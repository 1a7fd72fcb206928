	.file	"stencil.c"
	.intel_syntax noprefix
	.text
	.p2align 4
	.globl	stencil
	.type	stencil, @function
stencil:
.LFB0:
	.cfi_startproc
	push	rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	lea	rax, -1[rcx]
	mov	rbp, rsp
	.cfi_def_cfa_register 6
	push	r15
	push	r14
	push	r13
	push	r12
	push	rbx
	and	rsp, -32
	.cfi_offset 15, -24
	.cfi_offset 14, -32
	.cfi_offset 13, -40
	.cfi_offset 12, -48
	.cfi_offset 3, -56
	mov	QWORD PTR -8[rsp], rax
	cmp	rcx, 2
	jle	.L25
	mov	r14, rdx
	cmp	rdx, 2
	jle	.L25
	lea	rax, -2[rdx]
	lea	rbx, -3[rdx]
	mov	QWORD PTR -16[rsp], rbx
	mov	rbx, rax
	and	rbx, -4
	mov	QWORD PTR -64[rsp], rbx
	inc	rbx
	mov	QWORD PTR -56[rsp], rbx
	lea	rbx, 16[rsi]
	mov	r9, rdi
	mov	QWORD PTR -24[rsp], rbx
	lea	rbx, 8[rsi]
	mov	r13, rax
	mov	QWORD PTR -32[rsp], rbx
	and	eax, 3
	lea	rbx, 8[r9]
	vmovsd	xmm2, QWORD PTR .LC1[rip]
	mov	QWORD PTR -40[rsp], rbx
	mov	QWORD PTR -48[rsp], rax
	shr	r13, 2
	lea	r8, [rdx+rdx]
	sal	r13, 5
	mov	rdi, rdx
	xor	ecx, ecx
	mov	r15d, 1
	vmovddup	xmm3, xmm2
	vbroadcastsd	ymm1, xmm2
	.p2align 4,,10
	.p2align 3
.L4:
	inc	r15
	cmp	QWORD PTR -16[rsp], 2
	jbe	.L28
	mov	rax, QWORD PTR -24[rsp]
	lea	rdx, 0[0+rdi*8]
	lea	rbx, [rax+rdx]
	mov	rax, QWORD PTR -32[rsp]
	lea	r12, [rdx+rsi]
	lea	r11, [rax+rcx*8]
	lea	r10, [rax+r8*8]
	mov	rax, QWORD PTR -40[rsp]
	add	rdx, rax
	xor	eax, eax
	.p2align 4,,10
	.p2align 3
.L5:
	vmovupd	ymm4, YMMWORD PTR [rbx+rax]
	vaddpd	ymm0, ymm4, YMMWORD PTR [r12+rax]
	vaddpd	ymm0, ymm0, YMMWORD PTR [r11+rax]
	vaddpd	ymm0, ymm0, YMMWORD PTR [r10+rax]
	vmulpd	ymm0, ymm0, ymm1
	vmovupd	YMMWORD PTR [rdx+rax], ymm0
	add	rax, 32
	cmp	r13, rax
	jne	.L5
	cmp	QWORD PTR -48[rsp], 0
	je	.L6
	mov	rdx, QWORD PTR -64[rsp]
	mov	rax, QWORD PTR -56[rsp]
.L9:
	mov	r10, r14
	sub	r10, rdx
	lea	r11, -2[r10]
	cmp	r10, 3
	je	.L7
	lea	r10, [rdi+rdx]
	vmovupd	xmm5, XMMWORD PTR 16[rsi+r10*8]
	lea	rbx, 1[rcx+rdx]
	vaddpd	xmm0, xmm5, XMMWORD PTR [rsi+r10*8]
	lea	rdx, 1[rdx+r8]
	vaddpd	xmm0, xmm0, XMMWORD PTR [rsi+rbx*8]
	vaddpd	xmm0, xmm0, XMMWORD PTR [rsi+rdx*8]
	vmulpd	xmm0, xmm0, xmm3
	vmovupd	XMMWORD PTR 8[r9+r10*8], xmm0
	test	r11b, 1
	je	.L6
	and	r11, -2
	add	rax, r11
.L7:
	lea	rdx, [rdi+rax]
	vmovsd	xmm0, QWORD PTR -8[rsi+rdx*8]
	lea	r10, [rcx+rax]
	vaddsd	xmm0, xmm0, QWORD PTR 8[rsi+rdx*8]
	add	rax, r8
	vaddsd	xmm0, xmm0, QWORD PTR [rsi+r10*8]
	vaddsd	xmm0, xmm0, QWORD PTR [rsi+rax*8]
	vmulsd	xmm0, xmm0, xmm2
	vmovsd	QWORD PTR [r9+rdx*8], xmm0
.L6:
	add	rdi, r14
	add	rcx, r14
	add	r8, r14
	cmp	QWORD PTR -8[rsp], r15
	jne	.L4
	vzeroupper
.L25:
	lea	rsp, -40[rbp]
	pop	rbx
	pop	r12
	pop	r13
	pop	r14
	pop	r15
	pop	rbp
	.cfi_remember_state
	.cfi_def_cfa 7, 8
	ret
.L28:
	.cfi_restore_state
	xor	edx, edx
	mov	eax, 1
	jmp	.L9
	.cfi_endproc
.LFE0:
	.size	stencil, .-stencil
	.section	.rodata.cst8,"aM",@progbits,8
	.align 8
.LC1:
	.long	0
	.long	1070596096
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
