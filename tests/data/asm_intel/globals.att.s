	.file	"globals.c"
	.text
	.p2align 4
	.globl	globals
	.type	globals, @function
globals:
.LFB0:
	.cfi_startproc
	testq	%rdi, %rdi
	jle	.L17
	leaq	-1(%rdi), %rax
	cmpq	$2, %rax
	jbe	.L8
	movq	%rdi, %rsi
	shrq	$2, %rsi
	vbroadcastsd	.LC1(%rip), %ymm2
	vbroadcastsd	.LC3(%rip), %ymm1
	salq	$5, %rsi
	xorl	%eax, %eax
	leaq	h(%rip), %rcx
	leaq	g(%rip), %rdx
	.p2align 4,,10
	.p2align 3
.L4:
	vmovapd	%ymm2, %ymm0
	vfmadd132pd	(%rcx,%rax), %ymm1, %ymm0
	vmovapd	%ymm0, (%rdx,%rax)
	addq	$32, %rax
	cmpq	%rax, %rsi
	jne	.L4
	movq	%rdi, %rax
	andq	$-4, %rax
	movq	%rax, %rsi
	cmpq	%rax, %rdi
	je	.L19
	vzeroupper
.L3:
	subq	%rsi, %rdi
	cmpq	$1, %rdi
	je	.L6
	vmovapd	(%rcx,%rsi,8), %xmm0
	vmovddup	.LC3(%rip), %xmm3
	vfmadd132pd	.LC1(%rip){1to2}, %xmm3, %xmm0
	vmovapd	%xmm0, (%rdx,%rsi,8)
	testb	$1, %dil
	je	.L17
	andq	$-2, %rdi
	addq	%rdi, %rax
.L6:
	vmovsd	(%rcx,%rax,8), %xmm0
	vmovsd	.LC3(%rip), %xmm4
	vfmadd132sd	.LC1(%rip), %xmm4, %xmm0
	vmovsd	%xmm0, (%rdx,%rax,8)
.L17:
	ret
	.p2align 4,,10
	.p2align 3
.L19:
	vzeroupper
	ret
.L8:
	xorl	%esi, %esi
	xorl	%eax, %eax
	leaq	h(%rip), %rcx
	leaq	g(%rip), %rdx
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
