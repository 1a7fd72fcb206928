	.text
	.file	"kernel.c"
	.globl	main                            // -- Begin function main
	.p2align	3
	.type	main,@function
main:                                   // @main
// %bb.0:
	sub	sp, sp, #112
	mov	w2, #1
	stp	x29, x30, [sp, #16]             // 16-byte Folded Spill
	stp	x28, x27, [sp, #32]             // 16-byte Folded Spill
	stp	x26, x25, [sp, #48]             // 16-byte Folded Spill
	stp	x24, x23, [sp, #64]             // 16-byte Folded Spill
	add	x29, sp, #16
	stp	x22, x21, [sp, #80]             // 16-byte Folded Spill
	stp	x20, x19, [sp, #96]             // 16-byte Folded Spill
	mov	x19, x1
	mov	w20, w0
	bl	kc_constant
	mov	x22, x0
	mov	w0, w20
	mov	x1, x19
	mov	w2, #2
	bl	kc_constant
	mul	x23, x0, x22
	mov	x20, x0
	mov	w0, #64
	lsl	x8, x23, #3
	add	x8, x8, #63
	and	x21, x8, #0xffffffffffffffc0
	mov	x1, x21
	bl	aligned_alloc
	mov	x1, x23
	mov	x19, x0
	bl	kc_init_double
	mov	w0, #64
	mov	x1, x21
	bl	aligned_alloc
	mov	x1, x23
	mov	x21, x0
	bl	kc_init_double
	add	x0, sp, #8
	mov	w1, #1
	bl	kc_init_double
	cmp	x22, #3
	b.lt	.LBB0_16
// %bb.1:
	cmp	x20, #3
	b.lt	.LBB0_16
// %bb.2:
	sub	x11, x20, #4
	lsl	x16, x20, #3
	ldr	d0, [sp, #8]
	lsr	x12, x11, #1
	add	x15, x12, #1
	sub	x10, x20, #2
	and	x14, x15, #0x7
	add	x17, x21, x16
	add	x0, x19, x20, lsl #4
	add	x2, x19, x16
	mov	x8, xzr
	sub	x9, x22, #1
	and	x12, x10, #0xfffffffffffffffe
	orr	x13, x10, #0x1
	and	x15, x15, #0xfffffffffffffff8
	add	x18, x17, #72
	add	x1, x0, #72
	add	x3, x2, #64
	lsl	x4, x14, #4
	sub	x5, x20, #1
	mov	w23, #1
	mov	x6, x19
	b	.LBB0_4
	.p2align	2
.LBB0_3:                                //   in Loop: Header=BB0_4 Depth=1
	add	x8, x8, x16
	add	x2, x2, x16
	add	x6, x6, x16
	add	x0, x0, x16
	add	x17, x17, x16
	mov	x23, x7
	cmp	x7, x9
	b.eq	.LBB0_16
.LBB0_4:                                // =>This Loop Header: Depth=1
                                        //     Child Loop BB0_9 Depth 2
                                        //     Child Loop BB0_12 Depth 2
                                        //     Child Loop BB0_15 Depth 2
	add	x7, x23, #1
	cmp	x10, #2
	b.hs	.LBB0_6
// %bb.5:                               //   in Loop: Header=BB0_4 Depth=1
	mov	w23, #1
	b	.LBB0_14
	.p2align	2
.LBB0_6:                                //   in Loop: Header=BB0_4 Depth=1
	cmp	x11, #14
	b.hs	.LBB0_8
// %bb.7:                               //   in Loop: Header=BB0_4 Depth=1
	mov	x22, xzr
	b	.LBB0_10
	.p2align	2
.LBB0_8:                                //   in Loop: Header=BB0_4 Depth=1
	mov	x22, xzr
	mov	x24, x8
	mov	x25, x15
	.p2align	2
.LBB0_9:                                //   Parent Loop BB0_4 Depth=1
                                        // =>  This Inner Loop Header: Depth=2
	add	x26, x3, x24
	add	x27, x19, x24
	ldp	q1, q2, [x26, #-64]
	ldp	q7, q16, [x26, #-32]
	ldur	q3, [x27, #8]
	fadd	v1.2d, v1.2d, v2.2d
	fadd	v2.2d, v2.2d, v7.2d
	fadd	v7.2d, v7.2d, v16.2d
	add	x28, x1, x24
	add	x30, x18, x24
	ldp	q5, q6, [x28, #-64]
	fadd	v1.2d, v1.2d, v3.2d
	ldur	q17, [x27, #40]
	ldur	q4, [x27, #24]
	fadd	v3.2d, v7.2d, v17.2d
	fadd	v2.2d, v2.2d, v4.2d
	ldur	q7, [x27, #72]
	fadd	v1.2d, v1.2d, v5.2d
	ldp	q4, q5, [x28, #-32]
	fadd	v2.2d, v2.2d, v6.2d
	ldur	q6, [x27, #56]
	fadd	v3.2d, v3.2d, v4.2d
	ldr	q4, [x26]
	ldur	q18, [x27, #88]
	fmul	v1.2d, v1.2d, v0.d[0]
	fmul	v2.2d, v2.2d, v0.d[0]
	stp	q1, q2, [x30, #-64]
	fadd	v4.2d, v16.2d, v4.2d
	fmul	v3.2d, v3.2d, v0.d[0]
	add	x22, x22, #16
	add	x24, x24, #128
	fadd	v4.2d, v4.2d, v6.2d
	fadd	v4.2d, v4.2d, v5.2d
	ldp	q5, q6, [x26]
	fadd	v5.2d, v5.2d, v6.2d
	fmul	v4.2d, v4.2d, v0.d[0]
	stp	q3, q4, [x30, #-32]
	fadd	v5.2d, v5.2d, v7.2d
	ldp	q7, q16, [x28]
	fadd	v5.2d, v5.2d, v7.2d
	ldp	q7, q17, [x26, #32]
	fadd	v6.2d, v6.2d, v7.2d
	fmul	v5.2d, v5.2d, v0.d[0]
	fadd	v6.2d, v6.2d, v18.2d
	fadd	v6.2d, v6.2d, v16.2d
	ldur	q16, [x27, #120]
	fmul	v6.2d, v6.2d, v0.d[0]
	stp	q5, q6, [x30]
	fadd	v5.2d, v7.2d, v17.2d
	ldur	q6, [x27, #104]
	fadd	v5.2d, v5.2d, v6.2d
	ldp	q6, q7, [x28, #32]
	fadd	v5.2d, v5.2d, v6.2d
	ldr	q6, [x26, #64]
	fadd	v6.2d, v17.2d, v6.2d
	fmul	v5.2d, v5.2d, v0.d[0]
	fadd	v6.2d, v6.2d, v16.2d
	fadd	v6.2d, v6.2d, v7.2d
	fmul	v6.2d, v6.2d, v0.d[0]
	stp	q5, q6, [x30, #32]
	subs	x25, x25, #8
	b.ne	.LBB0_9
.LBB0_10:                               //   in Loop: Header=BB0_4 Depth=1
	cbz	x14, .LBB0_13
// %bb.11:                              //   in Loop: Header=BB0_4 Depth=1
	sub	x25, x23, #1
	mov	x24, xzr
	mul	x23, x23, x20
	mul	x25, x20, x25
	mul	x26, x20, x7
	add	x27, x2, x22, lsl #3
	.p2align	2
.LBB0_12:                               //   Parent Loop BB0_4 Depth=1
                                        // =>  This Inner Loop Header: Depth=2
	add	x28, x27, x24
	add	x24, x24, #16
	ldp	q1, q2, [x28]
	orr	x28, x22, #0x1
	add	x30, x28, x25
	lsl	x30, x30, #3
	add	x22, x22, #2
	fadd	v1.2d, v1.2d, v2.2d
	ldr	q2, [x19, x30]
	add	x30, x28, x26
	lsl	x30, x30, #3
	add	x28, x28, x23
	lsl	x28, x28, #3
	fadd	v1.2d, v1.2d, v2.2d
	ldr	q2, [x19, x30]
	fadd	v1.2d, v1.2d, v2.2d
	fmul	v1.2d, v1.2d, v0.d[0]
	str	q1, [x21, x28]
	cmp	x4, x24
	b.ne	.LBB0_12
.LBB0_13:                               //   in Loop: Header=BB0_4 Depth=1
	mov	x23, x13
	cmp	x10, x12
	b.eq	.LBB0_3
.LBB0_14:                               //   in Loop: Header=BB0_4 Depth=1
	lsl	x22, x23, #3
	sub	x23, x5, x23
	.p2align	2
.LBB0_15:                               //   Parent Loop BB0_4 Depth=1
                                        // =>  This Inner Loop Header: Depth=2
	add	x24, x2, x22
	ldur	d1, [x24, #-8]
	ldr	d2, [x24, #8]
	fadd	d1, d1, d2
	ldr	d2, [x6, x22]
	fadd	d1, d1, d2
	ldr	d2, [x0, x22]
	fadd	d1, d1, d2
	fmul	d1, d1, d0
	str	d1, [x17, x22]
	add	x22, x22, #8
	subs	x23, x23, #1
	b.ne	.LBB0_15
	b	.LBB0_3
.LBB0_16:
	mov	x0, x19
	bl	dummy
	mov	x0, x21
	bl	dummy
	add	x0, sp, #8
	bl	dummy
	mov	x0, x19
	bl	free
	mov	x0, x21
	bl	free
	ldp	x20, x19, [sp, #96]             // 16-byte Folded Reload
	ldp	x22, x21, [sp, #80]             // 16-byte Folded Reload
	ldp	x24, x23, [sp, #64]             // 16-byte Folded Reload
	ldp	x26, x25, [sp, #48]             // 16-byte Folded Reload
	ldp	x28, x27, [sp, #32]             // 16-byte Folded Reload
	ldp	x29, x30, [sp, #16]             // 16-byte Folded Reload
	mov	w0, wzr
	add	sp, sp, #112
	ret
.Lfunc_end0:
	.size	main, .Lfunc_end0-main
                                        // -- End function
	.ident	"Debian clang version 14.0.6"
	.section	".note.GNU-stack","",@progbits
	.addrsig
