	.file	"globals.c"
	.intel_syntax noprefix
	.text
	.p2align 4
	.globl	globals
	.type	globals, @function
globals:
.LFB0:
	.cfi_startproc
	test	rdi, rdi
	jle	.L17
	lea	rax, -1[rdi]
	cmp	rax, 2
	jbe	.L8
	mov	rsi, rdi
	shr	rsi, 2
	vbroadcastsd	ymm2, QWORD PTR .LC1[rip]
	vbroadcastsd	ymm1, QWORD PTR .LC3[rip]
	sal	rsi, 5
	xor	eax, eax
	lea	rcx, h[rip]
	lea	rdx, g[rip]
	.p2align 4,,10
	.p2align 3
.L4:
	vmovapd	ymm0, ymm2
	vfmadd132pd	ymm0, ymm1, YMMWORD PTR [rcx+rax]
	vmovapd	YMMWORD PTR [rdx+rax], ymm0
	add	rax, 32
	cmp	rsi, rax
	jne	.L4
	mov	rax, rdi
	and	rax, -4
	mov	rsi, rax
	cmp	rdi, rax
	je	.L19
	vzeroupper
.L3:
	sub	rdi, rsi
	cmp	rdi, 1
	je	.L6
	vmovapd	xmm0, XMMWORD PTR [rcx+rsi*8]
	vmovddup	xmm3, QWORD PTR .LC3[rip]
	vfmadd132pd	xmm0, xmm3, QWORD PTR .LC1[rip]{1to2}
	vmovapd	XMMWORD PTR [rdx+rsi*8], xmm0
	test	dil, 1
	je	.L17
	and	rdi, -2
	add	rax, rdi
.L6:
	vmovsd	xmm0, QWORD PTR [rcx+rax*8]
	vmovsd	xmm4, QWORD PTR .LC3[rip]
	vfmadd132sd	xmm0, xmm4, QWORD PTR .LC1[rip]
	vmovsd	QWORD PTR [rdx+rax*8], xmm0
.L17:
	ret
	.p2align 4,,10
	.p2align 3
.L19:
	vzeroupper
	ret
.L8:
	xor	esi, esi
	xor	eax, eax
	lea	rcx, h[rip]
	lea	rdx, g[rip]
	jmp	.L3
	.cfi_endproc
.LFE0:
	.size	globals, .-globals
	.globl	h
	.bss
	.align 32
	.type	h, @object
	.size	h, 32768
h:
	.zero	32768
	.globl	g
	.align 32
	.type	g, @object
	.size	g, 32768
g:
	.zero	32768
	.section	.rodata.cst8,"aM",@progbits,8
	.align 8
.LC1:
	.long	0
	.long	1074003968
	.align 8
.LC3:
	.long	0
	.long	1072693248
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
