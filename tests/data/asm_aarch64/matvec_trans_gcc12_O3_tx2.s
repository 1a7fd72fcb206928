	.arch armv8.1-a+crypto+crc
	.file	"kernel.c"
	.text
	.section	.text.startup,"ax",@progbits
	.align	2
	.p2align 4,,15
	.global	main
	.type	main, %function
main:
.LFB5:
	.cfi_startproc
	stp	x29, x30, [sp, -64]!
	.cfi_def_cfa_offset 64
	.cfi_offset 29, -64
	.cfi_offset 30, -56
	mov	w2, 1
	mov	x29, sp
	stp	x19, x20, [sp, 16]
	.cfi_offset 19, -48
	.cfi_offset 20, -40
	mov	w19, w0
	mov	x20, x1
	stp	x21, x22, [sp, 32]
	stp	x23, x24, [sp, 48]
	.cfi_offset 21, -32
	.cfi_offset 22, -24
	.cfi_offset 23, -16
	.cfi_offset 24, -8
	bl	kc_constant
	mov	w2, 2
	mov	x22, x0
	mov	x1, x20
	mov	w0, w19
	bl	kc_constant
	mul	x20, x22, x0
	mov	x21, x0
	mov	x0, 64
	lsl	x24, x21, 3
	lsl	x1, x20, 3
	add	x1, x1, 63
	and	x1, x1, -64
	bl	aligned_alloc
	mov	x1, x20
	mov	x19, x0
	bl	kc_init_double
	lsl	x1, x22, 3
	mov	x0, 64
	add	x1, x1, 63
	and	x1, x1, -64
	bl	aligned_alloc
	mov	x23, x0
	mov	x1, x22
	bl	kc_init_double
	add	x1, x24, 63
	mov	x0, 64
	and	x1, x1, -64
	bl	aligned_alloc
	mov	x20, x0
	mov	x1, x21
	bl	kc_init_double
	cmp	x22, 0
	ble	.L2
	cmp	x21, 0
	ble	.L2
	sub	x13, x22, #1
	mov	x5, 0
	mov	x2, 0
	cmp	x22, 2
	ble	.L4
	add	x7, x19, x24
	lsl	x12, x21, 4
	lsl	x11, x21, 1
	mov	x10, x19
	add	x8, x23, 8
	sub	x14, x21, #1
	mov	x5, 0
	mov	x6, x21
	mov	x2, 2
	mov	x9, 1
.L9:
	ldr	d16, [x8, -8]
	cmp	x14, 2
	bls	.L31
	ldr	d17, [x8]
	dup	v3.2d, v16.d[0]
	lsr	x4, x21, 2
	mov	x1, x20
	add	x4, x20, x4, lsl 5
	mov	x3, x7
	mov	x0, x10
	dup	v2.2d, v17.d[0]
	.p2align 4,,15
.L5:
	ldp	q1, q0, [x1]
	ldr	q7, [x0, 16]
	ldr	q6, [x0], 32
	ldr	q5, [x3, 16]
	ldr	q4, [x3], 32
	fmla	v0.2d, v7.2d, v3.2d
	fmla	v1.2d, v6.2d, v3.2d
	fmla	v0.2d, v2.2d, v5.2d
	fmla	v1.2d, v2.2d, v4.2d
	stp	q1, q0, [x1]
	add	x1, x1, 32
	cmp	x1, x4
	bne	.L5
	and	x1, x21, -4
	mov	x0, x1
	mov	w3, w1
	cmp	x21, x1
	beq	.L6
.L14:
	sub	x4, x21, x0
	cmp	x4, 1
	beq	.L7
	add	x16, x5, x0
	add	x15, x6, x0
	add	x0, x20, x0, lsl 3
	add	x16, x19, x16, lsl 3
	add	x15, x19, x15, lsl 3
	ldr	q0, [x0]
	ldr	q1, [x15]
	ldr	q2, [x16]
	fmla	v0.2d, v2.2d, v16.d[0]
	fmla	v0.2d, v1.2d, v17.d[0]
	str	q0, [x0]
	tbz	x4, 0, .L6
	and	x4, x4, -2
	add	x1, x1, x4
	add	w3, w3, w4
.L7:
	add	x3, x20, w3, sxtw 3
	add	x0, x5, x1
	add	x1, x6, x1
	ldr	d2, [x19, x0, lsl 3]
	ldr	d1, [x19, x1, lsl 3]
	ldr	d0, [x3]
	fmadd	d0, d16, d2, d0
	fmadd	d0, d17, d1, d0
	str	d0, [x3]
.L6:
	add	x9, x9, 2
	add	x10, x10, x12
	add	x7, x7, x12
	add	x5, x5, x11
	add	x6, x6, x11
	add	x8, x8, 16
	add	x0, x2, 2
	cmp	x13, x9
	ble	.L32
	mov	x2, x0
	b	.L9
.L32:
	sxtw	x5, w2
.L4:
	lsr	x4, x21, 1
	and	x0, x21, -2
	add	x4, x20, x4, lsl 4
	mov	w6, w0
	.p2align 4,,15
.L13:
	ldr	d2, [x23, x5, lsl 3]
	mul	x2, x21, x2
	cmp	x21, 1
	beq	.L17
	dup	v3.2d, v2.d[0]
	add	x3, x19, x2, lsl 3
	mov	x1, x20
	.p2align 4,,15
.L11:
	ldr	q0, [x1]
	ldr	q1, [x3], 16
	fmla	v0.2d, v1.2d, v3.2d
	str	q0, [x1], 16
	cmp	x1, x4
	bne	.L11
	cmp	x21, x0
	beq	.L12
	mov	w1, w6
	mov	x3, x0
.L10:
	add	x1, x20, w1, sxtw 3
	add	x2, x2, x3
	ldr	d1, [x19, x2, lsl 3]
	ldr	d0, [x1]
	fmadd	d0, d2, d1, d0
	str	d0, [x1]
.L12:
	add	x5, x5, 1
	mov	x2, x5
	cmp	x22, x5
	bgt	.L13
.L2:
	mov	x0, x19
	bl	dummy
	mov	x0, x23
	bl	dummy
	mov	x0, x20
	bl	dummy
	mov	x0, x19
	bl	free
	mov	x0, x23
	bl	free
	mov	x0, x20
	bl	free
	ldp	x19, x20, [sp, 16]
	ldp	x21, x22, [sp, 32]
	ldp	x23, x24, [sp, 48]
	mov	w0, 0
	ldp	x29, x30, [sp], 64
	.cfi_remember_state
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 23
	.cfi_restore 24
	.cfi_restore 21
	.cfi_restore 22
	.cfi_restore 19
	.cfi_restore 20
	.cfi_def_cfa_offset 0
	ret
.L17:
	.cfi_restore_state
	mov	w1, 0
	mov	x3, 0
	b	.L10
.L31:
	ldr	d17, [x8]
	mov	x0, 0
	mov	w3, 0
	mov	x1, 0
	b	.L14
	.cfi_endproc
.LFE5:
	.size	main, .-main
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
