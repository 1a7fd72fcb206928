	.file	"triad.c"
	.intel_syntax noprefix
	.text
	.p2align 4
	.globl	triad
	.type	triad, @function
triad:
.LFB0:
	.cfi_startproc
	test	rcx, rcx
	jle	.L17
	lea	rax, -1[rcx]
	cmp	rax, 2
	jbe	.L8
	mov	r8, rcx
	shr	r8, 2
	vbroadcastsd	ymm2, xmm0
	sal	r8, 5
	xor	eax, eax
	.p2align 4,,10
	.p2align 3
.L4:
	vmovupd	ymm1, YMMWORD PTR [rdx+rax]
	vfmadd213pd	ymm1, ymm2, YMMWORD PTR [rsi+rax]
	vmovupd	YMMWORD PTR [rdi+rax], ymm1
	add	rax, 32
	cmp	rax, r8
	jne	.L4
	mov	rax, rcx
	and	rax, -4
	mov	r8, rax
	cmp	rcx, rax
	je	.L19
	vzeroupper
.L3:
	sub	rcx, r8
	cmp	rcx, 1
	je	.L6
	vmovupd	xmm4, XMMWORD PTR [rsi+r8*8]
	vmovddup	xmm1, xmm0
	vfmadd132pd	xmm1, xmm4, XMMWORD PTR [rdx+r8*8]
	vmovupd	XMMWORD PTR [rdi+r8*8], xmm1
	test	cl, 1
	je	.L17
	and	rcx, -2
	add	rax, rcx
.L6:
	vmovsd	xmm3, QWORD PTR [rsi+rax*8]
	vfmadd132sd	xmm0, xmm3, QWORD PTR [rdx+rax*8]
	vmovsd	QWORD PTR [rdi+rax*8], xmm0
.L17:
	ret
	.p2align 4,,10
	.p2align 3
.L19:
	vzeroupper
	ret
.L8:
	xor	r8d, r8d
	xor	eax, eax
	jmp	.L3
	.cfi_endproc
.LFE0:
	.size	triad, .-triad
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
