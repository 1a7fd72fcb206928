	.file	"sum.c"
	.intel_syntax noprefix
	.text
	.p2align 4
	.globl	sum
	.type	sum, @function
sum:
.LFB0:
	.cfi_startproc
	mov	rcx, rdi
	test	rsi, rsi
	jle	.L7
	lea	rax, -1[rsi]
	cmp	rax, 2
	jbe	.L8
	mov	rdx, rsi
	shr	rdx, 2
	sal	rdx, 5
	mov	rax, rdi
	add	rdx, rdi
	vxorpd	xmm0, xmm0, xmm0
	.p2align 4,,10
	.p2align 3
.L4:
	vaddsd	xmm0, xmm0, QWORD PTR [rax]
	add	rax, 32
	vaddsd	xmm0, xmm0, QWORD PTR -24[rax]
	vaddsd	xmm0, xmm0, QWORD PTR -16[rax]
	vaddsd	xmm0, xmm0, QWORD PTR -8[rax]
	cmp	rdx, rax
	jne	.L4
	mov	rax, rsi
	and	rax, -4
	test	sil, 3
	je	.L11
.L3:
	lea	rdi, 1[rax]
	vaddsd	xmm0, xmm0, QWORD PTR [rcx+rax*8]
	lea	rdx, 0[0+rax*8]
	cmp	rsi, rdi
	jle	.L1
	add	rax, 2
	vaddsd	xmm0, xmm0, QWORD PTR 8[rcx+rdx]
	cmp	rsi, rax
	jle	.L1
	vaddsd	xmm0, xmm0, QWORD PTR 16[rcx+rdx]
	ret
	.p2align 4,,10
	.p2align 3
.L7:
	vxorpd	xmm0, xmm0, xmm0
.L1:
	ret
	.p2align 4,,10
	.p2align 3
.L11:
	ret
.L8:
	xor	eax, eax
	vxorpd	xmm0, xmm0, xmm0
	jmp	.L3
	.cfi_endproc
.LFE0:
	.size	sum, .-sum
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
