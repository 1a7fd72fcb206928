	.text
	.file	"kernel.c"
	.globl	main                            // -- Begin function main
	.p2align	3
	.type	main,@function
main:                                   // @main
// %bb.0:
	sub	sp, sp, #64
	mov	w2, #1
	stp	x29, x30, [sp, #16]             // 16-byte Folded Spill
	stp	x22, x21, [sp, #32]             // 16-byte Folded Spill
	stp	x20, x19, [sp, #48]             // 16-byte Folded Spill
	add	x29, sp, #16
	bl	kc_constant
	lsl	x8, x0, #3
	mov	x22, x0
	add	x8, x8, #63
	mov	w0, #64
	and	x21, x8, #0xffffffffffffffc0
	mov	x1, x21
	bl	aligned_alloc
	mov	x1, x22
	mov	x19, x0
	bl	kc_init_double
	mov	w0, #64
	mov	x1, x21
	bl	aligned_alloc
	mov	x1, x22
	mov	x20, x0
	bl	kc_init_double
	mov	w0, #64
	mov	x1, x21
	bl	aligned_alloc
	mov	x1, x22
	mov	x21, x0
	bl	kc_init_double
	add	x0, sp, #8
	mov	w1, #1
	bl	kc_init_double
	cmp	x22, #1
	b.lt	.LBB0_13
// %bb.1:
	ldr	d0, [sp, #8]
	cmp	x22, #8
	b.hs	.LBB0_3
// %bb.2:
	mov	x8, xzr
	b	.LBB0_11
.LBB0_3:
	and	x8, x22, #0xfffffffffffffff8
	dup	v1.2d, v0.d[0]
	sub	x10, x8, #8
	lsr	x9, x10, #3
	add	x11, x9, #1
	and	x9, x11, #0x3
	cmp	x10, #24
	b.hs	.LBB0_5
// %bb.4:
	mov	x10, xzr
	b	.LBB0_7
.LBB0_5:
	mov	x10, xzr
	and	x11, x11, #0x3ffffffffffffffc
	add	x12, x19, #128
	add	x13, x20, #128
	add	x14, x21, #128
	.p2align	2
.LBB0_6:                                // =>This Inner Loop Header: Depth=1
	ldp	q4, q5, [x13, #-128]
	ldp	q6, q7, [x14, #-128]
	ldp	q2, q3, [x13, #-96]
	ldp	q16, q17, [x14, #-96]
	fmla	v4.2d, v6.2d, v1.2d
	fmla	v5.2d, v7.2d, v1.2d
	stp	q4, q5, [x12, #-128]
	ldp	q6, q7, [x13, #-64]
	ldp	q18, q19, [x14, #-64]
	fmla	v2.2d, v16.2d, v1.2d
	fmla	v3.2d, v17.2d, v1.2d
	stp	q2, q3, [x12, #-96]
	ldp	q16, q17, [x13, #-32]
	ldp	q20, q21, [x14, #-32]
	fmla	v6.2d, v18.2d, v1.2d
	fmla	v7.2d, v19.2d, v1.2d
	stp	q6, q7, [x12, #-64]
	ldp	q18, q19, [x13]
	ldp	q22, q23, [x14]
	fmla	v16.2d, v20.2d, v1.2d
	fmla	v17.2d, v21.2d, v1.2d
	stp	q16, q17, [x12, #-32]
	ldp	q20, q21, [x13, #32]
	fmla	v18.2d, v22.2d, v1.2d
	fmla	v19.2d, v23.2d, v1.2d
	stp	q18, q19, [x12]
	ldp	q22, q23, [x14, #32]
	fmla	v20.2d, v22.2d, v1.2d
	fmla	v21.2d, v23.2d, v1.2d
	stp	q20, q21, [x12, #32]
	ldp	q18, q19, [x13, #64]
	ldp	q22, q23, [x14, #64]
	ldp	q20, q21, [x13, #96]
	fmla	v18.2d, v22.2d, v1.2d
	fmla	v19.2d, v23.2d, v1.2d
	stp	q18, q19, [x12, #64]
	ldp	q22, q23, [x14, #96]
	fmla	v20.2d, v22.2d, v1.2d
	fmla	v21.2d, v23.2d, v1.2d
	stp	q20, q21, [x12, #96]
	add	x10, x10, #32
	add	x12, x12, #256
	add	x13, x13, #256
	add	x14, x14, #256
	subs	x11, x11, #4
	b.ne	.LBB0_6
.LBB0_7:
	cbz	x9, .LBB0_10
// %bb.8:
	lsl	x10, x10, #3
	add	x12, x10, #32
	add	x10, x20, x12
	add	x11, x21, x12
	add	x12, x19, x12
	.p2align	2
.LBB0_9:                                // =>This Inner Loop Header: Depth=1
	ldp	q2, q3, [x10]
	ldp	q4, q5, [x11]
	ldp	q6, q7, [x10, #-32]
	ldp	q16, q17, [x11, #-32]
	fmla	v6.2d, v16.2d, v1.2d
	stur	q6, [x12, #-32]
	fmla	v7.2d, v17.2d, v1.2d
	fmla	v2.2d, v4.2d, v1.2d
	stp	q7, q2, [x12, #-16]
	fmla	v3.2d, v5.2d, v1.2d
	str	q3, [x12, #16]
	add	x10, x10, #64
	add	x11, x11, #64
	add	x12, x12, #64
	subs	x9, x9, #1
	b.ne	.LBB0_9
.LBB0_10:
	cmp	x22, x8
	b.eq	.LBB0_13
.LBB0_11:
	lsl	x11, x8, #3
	sub	x8, x22, x8
	add	x9, x19, x11
	add	x10, x21, x11
	add	x11, x20, x11
	.p2align	2
.LBB0_12:                               // =>This Inner Loop Header: Depth=1
	ldr	d1, [x11], #8
	ldr	d2, [x10], #8
	fmadd	d1, d0, d2, d1
	str	d1, [x9], #8
	subs	x8, x8, #1
	b.ne	.LBB0_12
.LBB0_13:
	mov	x0, x19
	bl	dummy
	mov	x0, x20
	bl	dummy
	mov	x0, x21
	bl	dummy
	add	x0, sp, #8
	bl	dummy
	mov	x0, x19
	bl	free
	mov	x0, x20
	bl	free
	mov	x0, x21
	bl	free
	ldp	x20, x19, [sp, #48]             // 16-byte Folded Reload
	ldp	x22, x21, [sp, #32]             // 16-byte Folded Reload
	ldp	x29, x30, [sp, #16]             // 16-byte Folded Reload
	mov	w0, wzr
	add	sp, sp, #64
	ret
.Lfunc_end0:
	.size	main, .Lfunc_end0-main
                                        // -- End function
	.ident	"Debian clang version 14.0.6"
	.section	".note.GNU-stack","",@progbits
	.addrsig
