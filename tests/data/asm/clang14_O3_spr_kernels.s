	.text
	.file	"k1.c"
	.globl	triad                           # -- Begin function triad
	.p2align	4, 0x90
	.type	triad,@function
triad:                                  # @triad
	.cfi_startproc
# %bb.0:
	testl	%edi, %edi
	jle	.LBB0_12
# %bb.1:
	movl	%edi, %r10d
	cmpl	$16, %edi
	jae	.LBB0_3
# %bb.2:
	xorl	%r9d, %r9d
	jmp	.LBB0_10
.LBB0_3:
	movl	%r10d, %r9d
	andl	$-16, %r9d
	vbroadcastsd	%xmm0, %ymm1
	leaq	-16(%r9), %rax
	movq	%rax, %r8
	shrq	$4, %r8
	incq	%r8
	testq	%rax, %rax
	je	.LBB0_4
# %bb.5:
	movq	%r8, %rdi
	andq	$-2, %rdi
	xorl	%edx, %edx
	leaq	b(%rip), %rsi
	leaq	c(%rip), %rcx
	leaq	a(%rip), %rax
	.p2align	4, 0x90
.LBB0_6:                                # =>This Inner Loop Header: Depth=1
	vmovupd	(%rcx,%rdx,8), %ymm2
	vmovupd	32(%rcx,%rdx,8), %ymm3
	vmovupd	64(%rcx,%rdx,8), %ymm4
	vmovupd	96(%rcx,%rdx,8), %ymm5
	vfmadd213pd	(%rsi,%rdx,8), %ymm1, %ymm2 # ymm2 = (ymm1 * ymm2) + mem
	vfmadd213pd	32(%rsi,%rdx,8), %ymm1, %ymm3 # ymm3 = (ymm1 * ymm3) + mem
	vfmadd213pd	64(%rsi,%rdx,8), %ymm1, %ymm4 # ymm4 = (ymm1 * ymm4) + mem
	vfmadd213pd	96(%rsi,%rdx,8), %ymm1, %ymm5 # ymm5 = (ymm1 * ymm5) + mem
	vmovupd	%ymm2, (%rax,%rdx,8)
	vmovupd	%ymm3, 32(%rax,%rdx,8)
	vmovupd	%ymm4, 64(%rax,%rdx,8)
	vmovupd	%ymm5, 96(%rax,%rdx,8)
	vmovupd	128(%rcx,%rdx,8), %ymm2
	vmovupd	160(%rcx,%rdx,8), %ymm3
	vmovupd	192(%rcx,%rdx,8), %ymm4
	vmovupd	224(%rcx,%rdx,8), %ymm5
	vfmadd213pd	128(%rsi,%rdx,8), %ymm1, %ymm2 # ymm2 = (ymm1 * ymm2) + mem
	vfmadd213pd	160(%rsi,%rdx,8), %ymm1, %ymm3 # ymm3 = (ymm1 * ymm3) + mem
	vfmadd213pd	192(%rsi,%rdx,8), %ymm1, %ymm4 # ymm4 = (ymm1 * ymm4) + mem
	vfmadd213pd	224(%rsi,%rdx,8), %ymm1, %ymm5 # ymm5 = (ymm1 * ymm5) + mem
	vmovupd	%ymm2, 128(%rax,%rdx,8)
	vmovupd	%ymm3, 160(%rax,%rdx,8)
	vmovupd	%ymm4, 192(%rax,%rdx,8)
	vmovupd	%ymm5, 224(%rax,%rdx,8)
	addq	$32, %rdx
	addq	$-2, %rdi
	jne	.LBB0_6
# %bb.7:
	testb	$1, %r8b
	je	.LBB0_9
.LBB0_8:
	leaq	b(%rip), %rax
	leaq	c(%rip), %rcx
	vmovupd	(%rcx,%rdx,8), %ymm2
	vmovupd	32(%rcx,%rdx,8), %ymm3
	vmovupd	64(%rcx,%rdx,8), %ymm4
	vmovupd	96(%rcx,%rdx,8), %ymm5
	vfmadd213pd	(%rax,%rdx,8), %ymm1, %ymm2 # ymm2 = (ymm1 * ymm2) + mem
	vfmadd213pd	32(%rax,%rdx,8), %ymm1, %ymm3 # ymm3 = (ymm1 * ymm3) + mem
	vfmadd213pd	64(%rax,%rdx,8), %ymm1, %ymm4 # ymm4 = (ymm1 * ymm4) + mem
	vfmadd213pd	96(%rax,%rdx,8), %ymm1, %ymm5 # ymm5 = (ymm1 * ymm5) + mem
	leaq	a(%rip), %rax
	vmovupd	%ymm2, (%rax,%rdx,8)
	vmovupd	%ymm3, 32(%rax,%rdx,8)
	vmovupd	%ymm4, 64(%rax,%rdx,8)
	vmovupd	%ymm5, 96(%rax,%rdx,8)
.LBB0_9:
	cmpq	%r10, %r9
	je	.LBB0_12
.LBB0_10:
	leaq	a(%rip), %rax
	leaq	(%rax,%r9,8), %rax
	leaq	c(%rip), %rcx
	leaq	(%rcx,%r9,8), %rcx
	leaq	b(%rip), %rdx
	leaq	(%rdx,%r9,8), %rdx
	subq	%r9, %r10
	xorl	%esi, %esi
	.p2align	4, 0x90
.LBB0_11:                               # =>This Inner Loop Header: Depth=1
	vmovsd	(%rcx,%rsi,8), %xmm1            # xmm1 = mem[0],zero
	vfmadd213sd	(%rdx,%rsi,8), %xmm0, %xmm1 # xmm1 = (xmm0 * xmm1) + mem
	vmovsd	%xmm1, (%rax,%rsi,8)
	incq	%rsi
	cmpq	%rsi, %r10
	jne	.LBB0_11
.LBB0_12:
	vzeroupper
	retq
.LBB0_4:
	xorl	%edx, %edx
	testb	$1, %r8b
	jne	.LBB0_8
	jmp	.LBB0_9
.Lfunc_end0:
	.size	triad, .Lfunc_end0-triad
	.cfi_endproc
                                        # -- End function
	.globl	sum                             # -- Begin function sum
	.p2align	4, 0x90
	.type	sum,@function
	cmpq	%rsi, %rdi
	jne	.LBB2_6
	jmp	.LBB2_7
.LBB2_8:
	popq	%rbx
	.cfi_def_cfa_offset 16
	popq	%r14
	.cfi_def_cfa_offset 8
	vzeroupper
	retq
.Lfunc_end2:
	.size	stencil, .Lfunc_end2-stencil
	.cfi_endproc
                                        # -- End function
	.globl	gather                          # -- Begin function gather
	.p2align	4, 0x90
	.type	gather,@function
gather:                                 # @gather
	.cfi_startproc
# %bb.0:
	testl	%edi, %edi
	jle	.LBB3_8
# %bb.1:
	movl	%edi, %r9d
	cmpl	$16, %edi
	jae	.LBB3_3
# %bb.2:
	xorl	%r8d, %r8d
	jmp	.LBB3_6
.LBB3_3:
	movl	%r9d, %r8d
	andl	$-16, %r8d
	leaq	(,%r9,4), %rdx
	andq	$-64, %rdx
	xorl	%esi, %esi
	leaq	idx(%rip), %rdi
	leaq	b(%rip), %rcx
	leaq	a(%rip), %rax
	.p2align	4, 0x90
.LBB3_4:                                # =>This Inner Loop Header: Depth=1
	vmovapd	(%rsi,%rdi), %xmm0
	vmovapd	16(%rsi,%rdi), %xmm1
	kxnorw	%k0, %k0, %k1
	vxorpd	%xmm2, %xmm2, %xmm2
	vgatherdpd	(%rcx,%xmm0,8), %ymm2 {%k1}
	kxnorw	%k0, %k0, %k1
	vxorpd	%xmm0, %xmm0, %xmm0
	vgatherdpd	(%rcx,%xmm1,8), %ymm0 {%k1}
	vmovapd	32(%rsi,%rdi), %xmm1
	vmovapd	48(%rsi,%rdi), %xmm3
	kxnorw	%k0, %k0, %k1
	vxorpd	%xmm4, %xmm4, %xmm4
	vgatherdpd	(%rcx,%xmm1,8), %ymm4 {%k1}
	kxnorw	%k0, %k0, %k1
	vxorpd	%xmm1, %xmm1, %xmm1
	vgatherdpd	(%rcx,%xmm3,8), %ymm1 {%k1}
	vaddpd	%ymm2, %ymm2, %ymm2
	vaddpd	%ymm0, %ymm0, %ymm0
	vaddpd	%ymm4, %ymm4, %ymm3
	vaddpd	%ymm1, %ymm1, %ymm1
	vmovupd	%ymm2, (%rax,%rsi,2)
	vmovupd	%ymm0, 32(%rax,%rsi,2)
	vmovupd	%ymm3, 64(%rax,%rsi,2)
	vmovupd	%ymm1, 96(%rax,%rsi,2)
	addq	$64, %rsi
	cmpq	%rsi, %rdx
	jne	.LBB3_4
# %bb.5:
	cmpq	%r9, %r8
	je	.LBB3_8
.LBB3_6:
	leaq	a(%rip), %rax
	leaq	(%rax,%r8,8), %rax
	leaq	idx(%rip), %rcx
	leaq	(%rcx,%r8,4), %rcx
	subq	%r8, %r9
	xorl	%edx, %edx
	leaq	b(%rip), %rsi
	.p2align	4, 0x90
.LBB3_7:                                # =>This Inner Loop Header: Depth=1
	movslq	(%rcx,%rdx,4), %rdi
	vmovsd	(%rsi,%rdi,8), %xmm0            # xmm0 = mem[0],zero
	vaddsd	%xmm0, %xmm0, %xmm0
	vmovsd	%xmm0, (%rax,%rdx,8)
	incq	%rdx
	cmpq	%rdx, %r9
	jne	.LBB3_7
.LBB3_8:
	vzeroupper
	retq
.Lfunc_end3:
	.size	gather, .Lfunc_end3-gather
	.cfi_endproc
                                        # -- End function
	.section	.rodata.cst4,"aM",@progbits,4
	.p2align	2                               # -- Begin function isum
.LCPI4_0:
	.long	3                               # 0x3
	.text
	.globl	isum
	.p2align	4, 0x90
	.type	isum,@function
	xorl	%edx, %edx
	testb	$1, %r8b
	jne	.LBB12_8
	jmp	.LBB12_9
.Lfunc_end12:
	.size	memops, .Lfunc_end12-memops
	.cfi_endproc
                                        # -- End function
	.type	b,@object                       # @b
	.bss
	.globl	b
	.p2align	4
b:
	.zero	80000
	.size	b, 80000

	.type	c,@object                       # @c
	.globl	c
	.p2align	4
c:
	.zero	80000
	.size	c, 80000

	.type	a,@object                       # @a
	.globl	a
	.p2align	4
a:
	.zero	80000
	.size	a, 80000

	.type	N,@object                       # @N
	.globl	N
	.p2align	4
N:
	.zero	320000
	.size	N, 320000

	.type	M,@object                       # @M
	.globl	M
	.p2align	4
M:
	.zero	320000
	.size	M, 320000

	.type	idx,@object                     # @idx
	.globl	idx
	.p2align	4
idx:
	.zero	40000
	.size	idx, 40000

	.type	fb,@object                      # @fb
	.globl	fb
	.p2align	4
fb:
	.zero	40000
	.size	fb, 40000

	.type	fa,@object                      # @fa
	.globl	fa
	.p2align	4
fa:
	.zero	40000
	.size	fa, 40000

	.type	d,@object                       # @d
	.globl	d
	.p2align	4
d:
	.zero	80000
	.size	d, 80000

	.ident	"Debian clang version 14.0.6"
	.section	".note.GNU-stack","",@progbits
	.addrsig
