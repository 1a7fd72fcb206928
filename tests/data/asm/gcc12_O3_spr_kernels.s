	.file	"k1.c"
	.text
	.p2align 4
	.globl	triad
	.type	triad, @function
triad:
.LFB0:
	.cfi_startproc
	testl	%edi, %edi
	jle	.L17
	leal	-1(%rdi), %eax
	cmpl	$2, %eax
	jbe	.L8
	movl	%edi, %r8d
	shrl	$2, %r8d
	vbroadcastsd	%xmm0, %ymm2
	salq	$5, %r8
	xorl	%eax, %eax
	leaq	c(%rip), %rsi
	leaq	b(%rip), %rcx
	leaq	a(%rip), %rdx
	.p2align 4,,10
	.p2align 3
.L4:
	vmovapd	(%rsi,%rax), %ymm1
	vfmadd213pd	(%rcx,%rax), %ymm2, %ymm1
	vmovapd	%ymm1, (%rdx,%rax)
	addq	$32, %rax
	cmpq	%rax, %r8
	jne	.L4
	movl	%edi, %eax
	andl	$-4, %eax
	movl	%eax, %r8d
	cmpl	%eax, %edi
	je	.L19
	vzeroupper
.L3:
	subl	%r8d, %edi
	cmpl	$1, %edi
	je	.L6
	vmovapd	(%rcx,%r8,8), %xmm4
	vmovddup	%xmm0, %xmm1
	vfmadd132pd	(%rsi,%r8,8), %xmm4, %xmm1
	vmovapd	%xmm1, (%rdx,%r8,8)
	testb	$1, %dil
	je	.L17
	andl	$-2, %edi
	addl	%edi, %eax
.L6:
	cltq
	vmovsd	(%rcx,%rax,8), %xmm3
	vfmadd132sd	(%rsi,%rax,8), %xmm3, %xmm0
	vmovsd	%xmm0, (%rdx,%rax,8)
.L17:
	ret
	.p2align 4,,10
	.p2align 3
.L19:
	vzeroupper
	ret
.L8:
	xorl	%r8d, %r8d
	xorl	%eax, %eax
	leaq	c(%rip), %rsi
	leaq	b(%rip), %rcx
	leaq	a(%rip), %rdx
	jmp	.L3
	.cfi_endproc
.LFE0:
	.size	triad, .-triad
	.p2align 4
	.globl	sum
	.type	sum, @function
sum:
.LFB1:
	.cfi_startproc
	movl	%edi, %ecx
	testl	%edi, %edi
	jle	.L26
	leal	-1(%rdi), %eax
	cmpl	$2, %eax
	jbe	.L27
	movl	%edi, %edx
	shrl	$2, %edx
	leaq	a(%rip), %rsi
	salq	$5, %rdx
	movq	%rsi, %rax
	addq	%rsi, %rdx
	vxorpd	%xmm0, %xmm0, %xmm0
	.p2align 4,,10
	.p2align 3
.L23:
	vaddsd	(%rax), %xmm0, %xmm0
	addq	$32, %rax
	vaddsd	-24(%rax), %xmm0, %xmm0
	vaddsd	-16(%rax), %xmm0, %xmm0
	vaddsd	-8(%rax), %xmm0, %xmm0
	cmpq	%rax, %rdx
	jne	.L23
	movl	%ecx, %eax
	andl	$-4, %eax
	testb	$3, %cl
	je	.L29
.L22:
	movslq	%eax, %rdx
	vaddsd	(%rsi,%rdx,8), %xmm0, %xmm0
	leal	1(%rax), %edx
	cmpl	%edx, %ecx
	jle	.L20
	movslq	%edx, %rdx
	addl	$2, %eax
	vaddsd	(%rsi,%rdx,8), %xmm0, %xmm0
	cmpl	%eax, %ecx
	jle	.L20
	cltq
	vaddsd	(%rsi,%rax,8), %xmm0, %xmm0
	ret
	.p2align 4,,10
	.p2align 3
.L26:
	vxorpd	%xmm0, %xmm0, %xmm0
.L20:
	ret
	.p2align 4,,10
	.p2align 3
.L29:
	ret
.L27:
	xorl	%eax, %eax
	vxorpd	%xmm0, %xmm0, %xmm0
	leaq	a(%rip), %rsi
	jmp	.L22
	.cfi_endproc
.LFE1:
	.size	sum, .-sum
	.p2align 4
	.globl	gather
	.type	gather, @function
gather:
.LFB3:
	.cfi_startproc
	testl	%edi, %edi
	jle	.L68
	leal	-1(%rdi), %eax
	cmpl	$6, %eax
	jbe	.L62
	movl	%edi, %esi
	shrl	$3, %esi
	leaq	idx(%rip), %r8
	leaq	a(%rip), %r9
	salq	$5, %rsi
	movq	%r8, %rdx
	movq	%r9, %rax
	addq	%r8, %rsi
	leaq	b(%rip), %rcx
	kxnorb	%k1, %k1, %k1
	.p2align 4,,10
	.p2align 3
.L58:
	vmovdqa	(%rdx), %ymm0
	kmovb	%k1, %k2
	vgatherdpd	(%rcx,%xmm0,8), %ymm2{%k2}
	vperm2i128	$17, %ymm0, %ymm0, %ymm0
	kmovb	%k1, %k3
	vgatherdpd	(%rcx,%xmm0,8), %ymm1{%k3}
	vaddpd	%ymm2, %ymm2, %ymm2
	vaddpd	%ymm1, %ymm1, %ymm1
	addq	$32, %rdx
	vmovapd	%ymm2, (%rax)
	vmovapd	%ymm1, 32(%rax)
	addq	$64, %rax
	cmpq	%rdx, %rsi
	jne	.L58
	movl	%edi, %eax
	andl	$-8, %eax
	movl	%eax, %edx
	cmpl	%eax, %edi
	je	.L69
	vzeroupper
.L57:
	movl	%edi, %esi
	subl	%edx, %esi
	leal	-1(%rsi), %r10d
	cmpl	$2, %r10d
	jbe	.L60
	vmovdqa	(%r8,%rdx,4), %xmm0
	kxnorb	%k1, %k1, %k1
	vpshufd	$238, %xmm0, %xmm2
	kmovb	%k1, %k4
	vgatherdpd	(%rcx,%xmm0,8), %xmm1{%k4}
	vgatherdpd	(%rcx,%xmm2,8), %xmm0{%k1}
	leaq	(%r9,%rdx,8), %r10
	vaddpd	%xmm1, %xmm1, %xmm1
	movl	%esi, %edx
	vaddpd	%xmm0, %xmm0, %xmm0
	andl	$-4, %edx
	addl	%edx, %eax
	andl	$3, %esi
	vmovapd	%xmm1, (%r10)
	vmovapd	%xmm0, 16(%r10)
	je	.L68
.L60:
	movslq	%eax, %rdx
	movslq	(%r8,%rdx,4), %rsi
	vmovsd	(%rcx,%rsi,8), %xmm0
	vaddsd	%xmm0, %xmm0, %xmm0
	vmovsd	%xmm0, (%r9,%rdx,8)
	leal	1(%rax), %edx
	cmpl	%edx, %edi
	jle	.L68
	movslq	%edx, %rdx
	movslq	(%r8,%rdx,4), %rsi
	addl	$2, %eax
	vmovsd	(%rcx,%rsi,8), %xmm0
	vaddsd	%xmm0, %xmm0, %xmm0
	vmovsd	%xmm0, (%r9,%rdx,8)
	cmpl	%eax, %edi
	jle	.L68
	cltq
	movslq	(%r8,%rax,4), %rdx
	vmovsd	(%rcx,%rdx,8), %xmm0
	vaddsd	%xmm0, %xmm0, %xmm0
	vmovsd	%xmm0, (%r9,%rax,8)
.L68:
	ret
	.p2align 4,,10
	.p2align 3
.L69:
	vzeroupper
	ret
.L62:
	xorl	%edx, %edx
	xorl	%eax, %eax
	leaq	idx(%rip), %r8
	leaq	a(%rip), %r9
	leaq	b(%rip), %rcx
	jmp	.L57
	.cfi_endproc
.LFE3:
	.size	gather, .-gather
	.globl	fb
	.bss
	.align 32
	.type	fb, @object
	.size	fb, 40000
fb:
	.zero	40000
	.globl	fa
	.align 32
	.type	fa, @object
	.size	fa, 40000
fa:
	.zero	40000
	.globl	idx
	.align 32
	.type	idx, @object
	.size	idx, 40000
idx:
	.zero	40000
	.globl	N
	.align 32
	.type	N, @object
	.size	N, 320000
N:
	.zero	320000
	.globl	M
	.align 32
	.type	M, @object
	.size	M, 320000
M:
	.zero	320000
	.globl	d
	.align 32
	.type	d, @object
	.size	d, 80000
d:
	.zero	80000
	.globl	c
	.align 32
	.type	c, @object
	.size	c, 80000
c:
	.zero	80000
	.globl	b
	.align 32
	.type	b, @object
	.size	b, 80000
b:
	.zero	80000
	.globl	a
	.align 32
	.type	a, @object
	.size	a, 80000
a:
	.zero	80000
	.section	.rodata.cst8,"aM",@progbits,8
	.align 8
.LC2:
	.long	0
	.long	1070596096
	.section	.rodata.cst16,"aM",@progbits,16
	.align 16
.LC4:
	.long	0
	.long	-2147483648
	.long	0
	.long	0
	.section	.rodata.cst4,"aM",@progbits,4
	.align 4
.LC6:
	.long	1065353216
	.align 4
.LC10:
	.long	1077936128
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
