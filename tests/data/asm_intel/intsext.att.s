	.file	"intsext.c"
	.text
	.p2align 4
	.globl	intsext
	.type	intsext, @function
intsext:
.LFB0:
	.cfi_startproc
	testq	%rcx, %rcx
	jle	.L16
	leaq	-1(%rcx), %rax
	movq	%rcx, %r8
	cmpq	$14, %rax
	jbe	.L8
	shrq	$4, %rcx
	salq	$5, %rcx
	xorl	%eax, %eax
	.p2align 4,,10
	.p2align 3
.L4:
	vmovdqu	32(%rsi,%rax,2), %ymm1
	vmovdqu16	(%rdx,%rax), %ymm2
	vpslld	$1, %ymm1, %ymm0
	vpaddd	%ymm1, %ymm0, %ymm0
	vextracti128	$0x1, %ymm2, %xmm1
	vpmovsxwd	%xmm1, %ymm1
	vmovdqu	(%rsi,%rax,2), %ymm3
	vpaddd	%ymm1, %ymm0, %ymm0
	vpsrad	$2, 32(%rdi,%rax,2), %ymm1
	vpmovsxwd	%xmm2, %ymm2
	vpaddd	%ymm1, %ymm0, %ymm0
	vpslld	$1, %ymm3, %ymm1
	vpaddd	%ymm3, %ymm1, %ymm1
	vpaddd	%ymm2, %ymm1, %ymm1
	vpsrad	$2, (%rdi,%rax,2), %ymm2
	vmovdqu	%ymm0, 32(%rdi,%rax,2)
	vpaddd	%ymm2, %ymm1, %ymm1
	vmovdqu	%ymm1, (%rdi,%rax,2)
	addq	$32, %rax
	cmpq	%rcx, %rax
	jne	.L4
	movq	%r8, %rax
	andq	$-16, %rax
	movq	%rax, %r9
	cmpq	%r8, %rax
	je	.L19
	vzeroupper
.L3:
	movq	%r8, %r10
	subq	%r9, %r10
	leaq	-1(%r10), %rcx
	cmpq	$6, %rcx
	jbe	.L6
	leaq	0(,%r9,4), %rcx
	leaq	(%rsi,%rcx), %r11
	vmovdqu	16(%r11), %xmm1
	vmovdqu16	(%rdx,%r9,2), %xmm2
	vpslld	$1, %xmm1, %xmm0
	vpaddd	%xmm1, %xmm0, %xmm0
	vpsrldq	$8, %xmm2, %xmm1
	addq	%rdi, %rcx
	vpmovsxwd	%xmm1, %xmm1
	vmovdqu	(%r11), %xmm3
	vpaddd	%xmm1, %xmm0, %xmm0
	vpsrad	$2, 16(%rcx), %xmm1
	vpmovsxwd	%xmm2, %xmm2
	vpaddd	%xmm1, %xmm0, %xmm0
	vpslld	$1, %xmm3, %xmm1
	vpaddd	%xmm3, %xmm1, %xmm1
	vpaddd	%xmm2, %xmm1, %xmm1
	vpsrad	$2, (%rcx), %xmm2
	vmovdqu	%xmm0, 16(%rcx)
	vpaddd	%xmm2, %xmm1, %xmm1
	vmovdqu	%xmm1, (%rcx)
	movq	%r10, %rcx
	andq	$-8, %rcx
	addq	%rcx, %rax
	andl	$7, %r10d
	je	.L16
.L6:
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movl	(%rsi,%rax,4), %r9d
	leaq	0(,%rax,4), %rcx
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%r14
	leal	(%r9,%r9,2), %r9d
	.cfi_offset 14, -24
	movl	$2, %r14d
	pushq	%rbx
	.cfi_offset 3, -32
	leaq	(%rdi,%rcx), %rbx
	leaq	(%rax,%rax), %r10
	movswl	(%rdx,%rax,2), %r11d
	addl	%r11d, %r9d
	sarx	%r14d, (%rbx), %r11d
	addl	%r11d, %r9d
	movl	%r9d, (%rbx)
	leaq	1(%rax), %r9
	cmpq	%r9, %r8
	jle	.L14
	movl	4(%rsi,%rcx), %r11d
	movswl	2(%rdx,%r10), %r9d
	leal	(%r11,%r11,2), %r11d
	leaq	4(%rdi,%rcx), %rbx
	addl	%r11d, %r9d
	sarx	%r14d, (%rbx), %r11d
	addl	%r11d, %r9d
	movl	%r9d, (%rbx)
	leaq	2(%rax), %r9
	cmpq	%r9, %r8
	jle	.L14
	movl	8(%rsi,%rcx), %r9d
	movswl	4(%rdx,%r10), %r11d
	leal	(%r9,%r9,2), %r9d
	leaq	8(%rdi,%rcx), %rbx
	addl	%r11d, %r9d
	sarx	%r14d, (%rbx), %r11d
	addl	%r11d, %r9d
	movl	%r9d, (%rbx)
	leaq	3(%rax), %r9
	cmpq	%r9, %r8
	jle	.L14
	movl	12(%rsi,%rcx), %r9d
	movswl	6(%rdx,%r10), %r11d
	leal	(%r9,%r9,2), %r9d
	leaq	12(%rdi,%rcx), %rbx
	addl	%r11d, %r9d
	sarx	%r14d, (%rbx), %r11d
	addl	%r11d, %r9d
	movl	%r9d, (%rbx)
	leaq	4(%rax), %r9
	cmpq	%r9, %r8
	jle	.L14
	movl	16(%rsi,%rcx), %r9d
	movswl	8(%rdx,%r10), %r11d
	leal	(%r9,%r9,2), %r9d
	leaq	16(%rdi,%rcx), %rbx
	addl	%r11d, %r9d
	sarx	%r14d, (%rbx), %r11d
	addl	%r11d, %r9d
	movl	%r9d, (%rbx)
	leaq	5(%rax), %r9
	cmpq	%r9, %r8
	jle	.L14
	movl	20(%rsi,%rcx), %r9d
	movswl	10(%rdx,%r10), %r11d
	leal	(%r9,%r9,2), %r9d
	leaq	20(%rdi,%rcx), %rbx
	addl	%r11d, %r9d
	addq	$6, %rax
	sarx	%r14d, (%rbx), %r11d
	addl	%r11d, %r9d
	movl	%r9d, (%rbx)
	cmpq	%rax, %r8
	jle	.L14
	movl	24(%rsi,%rcx), %eax
	movswl	12(%rdx,%r10), %edx
	leal	(%rax,%rax,2), %eax
	leaq	24(%rdi,%rcx), %rdi
	addl	%edx, %eax
	sarx	%r14d, (%rdi), %edx
	addl	%edx, %eax
	movl	%eax, (%rdi)
.L14:
	popq	%rbx
	popq	%r14
	popq	%rbp
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
	xorl	%r9d, %r9d
	xorl	%eax, %eax
	jmp	.L3
.L19:
	vzeroupper
	ret
	.cfi_endproc
.LFE0:
	.size	intsext, .-intsext
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
