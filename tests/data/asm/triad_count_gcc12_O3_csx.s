	.file	"triad.c"
	.text
	.p2align 4
	.globl	triad
	.type	triad, @function
triad:
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
	.p2align 4,,10
	.p2align 3
.L4:
	vmovupd	(%rcx,%rax), %ymm1
	vfmadd213pd	(%rdx,%rax), %ymm2, %ymm1
	vmovupd	%ymm1, (%rsi,%rax)
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
	vmovupd	(%rdx,%r8,8), %xmm4
	vmovddup	%xmm0, %xmm1
	vfmadd132pd	(%rcx,%r8,8), %xmm4, %xmm1
	vmovupd	%xmm1, (%rsi,%r8,8)
	testb	$1, %dil
	je	.L17
	andl	$-2, %edi
	addl	%edi, %eax
.L6:
	cltq
	vmovsd	(%rdx,%rax,8), %xmm3
	vfmadd132sd	(%rcx,%rax,8), %xmm3, %xmm0
	vmovsd	%xmm0, (%rsi,%rax,8)
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
	jmp	.L3
	.size	triad, .-triad
	.p2align 4
	.globl	count
	.type	count, @function
count:
	movq	%rsi, %r8
	testl	%edi, %edi
	jle	.L28
	leal	-1(%rdi), %eax
	cmpl	$6, %eax
	jbe	.L29
	movl	%edi, %edx
	shrl	$3, %edx
	salq	$5, %rdx
	movl	$1, %ecx
	movq	%rsi, %rax
	addq	%rsi, %rdx
	vpxor	%xmm1, %xmm1, %xmm1
	vpxor	%xmm4, %xmm4, %xmm4
	vpbroadcastd	%ecx, %ymm3
	.p2align 4,,10
	.p2align 3
.L23:
	vmovdqu	(%rax), %ymm5
	addq	$32, %rax
	vpcmpgtd	%ymm4, %ymm5, %ymm0
	vpand	%ymm3, %ymm0, %ymm0
	vpmovzxdq	%xmm0, %ymm2
	vextracti128	$0x1, %ymm0, %xmm0
	vpaddq	%ymm1, %ymm2, %ymm1
	vpmovzxdq	%xmm0, %ymm0
	vpaddq	%ymm1, %ymm0, %ymm1
	cmpq	%rax, %rdx
	jne	.L23
	vmovdqa	%xmm1, %xmm2
	vextracti64x2	$0x1, %ymm1, %xmm1
	vpaddq	%xmm1, %xmm2, %xmm2
	vpsrldq	$8, %xmm2, %xmm0
	movl	%edi, %edx
	vpaddq	%xmm0, %xmm2, %xmm0
	andl	$-8, %edx
	vmovq	%xmm0, %rax
	movl	%edx, %ecx
	cmpl	%edx, %edi
	je	.L35
	vzeroupper
.L22:
	movl	%edi, %esi
	subl	%ecx, %esi
	leal	-1(%rsi), %r9d
	cmpl	$2, %r9d
	jbe	.L26
	vmovdqu	(%r8,%rcx,4), %xmm0
	vpxor	%xmm1, %xmm1, %xmm1
	vpcmpgtd	%xmm1, %xmm0, %xmm0
	movl	$1, %eax
	vpbroadcastd	%eax, %xmm1
	vpand	%xmm1, %xmm0, %xmm0
	vpmovzxdq	%xmm0, %xmm1
	vpsrldq	$8, %xmm0, %xmm0
	vpaddq	%xmm2, %xmm1, %xmm1
	vpmovzxdq	%xmm0, %xmm0
	vpaddq	%xmm1, %xmm0, %xmm0
	movl	%esi, %ecx
	andl	$-4, %ecx
	vpsrldq	$8, %xmm0, %xmm1
	vpaddq	%xmm1, %xmm0, %xmm0
	addl	%ecx, %edx
	andl	$3, %esi
	vmovq	%xmm0, %rax
	je	.L20
.L26:
	movslq	%edx, %rcx
	movl	(%r8,%rcx,4), %r10d
	leaq	0(,%rcx,4), %rsi
	xorl	%ecx, %ecx
	testl	%r10d, %r10d
	setg	%cl
	addq	%rcx, %rax
	leal	1(%rdx), %ecx
	cmpl	%ecx, %edi
	jle	.L20
	movl	4(%r8,%rsi), %r9d
	xorl	%ecx, %ecx
	testl	%r9d, %r9d
	setg	%cl
	addl	$2, %edx
	addq	%rcx, %rax
	cmpl	%edx, %edi
	jle	.L20
	movl	8(%r8,%rsi), %ecx
	xorl	%edx, %edx
	testl	%ecx, %ecx
	setg	%dl
	addq	%rdx, %rax
	ret
	.p2align 4,,10
	.p2align 3
.L28:
	xorl	%eax, %eax
.L20:
	ret
	.p2align 4,,10
	.p2align 3
.L35:
	vzeroupper
	ret
.L29:
	vpxor	%xmm2, %xmm2, %xmm2
	xorl	%ecx, %ecx
	xorl	%edx, %edx
	xorl	%eax, %eax
	jmp	.L22
	.size	count, .-count
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
