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
	stp	x29, x30, [sp, -480]!
	.cfi_def_cfa_offset 480
	.cfi_offset 29, -480
	.cfi_offset 30, -472
	mov	w2, 1
	mov	x29, sp
	stp	x19, x20, [sp, 16]
	stp	x21, x22, [sp, 32]
	.cfi_offset 19, -464
	.cfi_offset 20, -456
	.cfi_offset 21, -448
	.cfi_offset 22, -440
	mov	w21, w0
	mov	x22, x1
	stp	x23, x24, [sp, 48]
	.cfi_offset 23, -432
	.cfi_offset 24, -424
	add	x23, sp, 472
	stp	x25, x26, [sp, 64]
	stp	x27, x28, [sp, 80]
	.cfi_offset 25, -416
	.cfi_offset 26, -408
	.cfi_offset 27, -400
	.cfi_offset 28, -392
	bl	kc_constant
	add	x3, sp, 456
	mov	w2, 2
	mov	x26, x0
	mov	x1, x22
	mov	w0, w21
	str	x3, [sp, 424]
	bl	kc_constant
	mov	x24, x0
	mov	w0, w21
	mul	x21, x26, x24
	mov	w2, 3
	add	x1, sp, 464
	str	x1, [sp, 432]
	mov	x1, x22
	bl	kc_constant
	mov	x20, x0
	mov	x0, 64
	mul	x21, x21, x20
	lsl	x22, x21, 3
	add	x22, x22, 63
	and	x22, x22, -64
	mov	x1, x22
	bl	aligned_alloc
	mov	x1, x21
	str	x0, [sp, 184]
	bl	kc_init_double
	mov	x0, 64
	mov	x1, x22
	bl	aligned_alloc
	mov	x19, x0
	mov	x1, x21
	bl	kc_init_double
	mov	x0, 64
	mov	x1, x22
	bl	aligned_alloc
	mov	x25, x0
	mov	x1, x21
	bl	kc_init_double
	mov	x0, 64
	mov	x1, x22
	bl	aligned_alloc
	mov	x27, x0
	mov	x1, x21
	bl	kc_init_double
	mov	x0, 64
	mov	x1, x22
	bl	aligned_alloc
	mov	x28, x0
	mov	x1, x21
	bl	kc_init_double
	ldr	x0, [sp, 424]
	mov	x1, 1
	bl	kc_init_double
	ldr	x0, [sp, 432]
	mov	x1, 1
	bl	kc_init_double
	mov	x1, 1
	mov	x0, x23
	bl	kc_init_double
	cmp	x26, 4
	ble	.L2
	cmp	x24, 4
	ble	.L2
	cmp	x20, 4
	ble	.L2
	ldp	d5, d4, [sp, 456]
	ldr	d17, [sp, 472]
	sub	x0, x20, #4
	fmov	v7.2d, 2.5e-1
	lsr	x3, x0, 1
	and	x2, x0, -2
	and	x0, x0, 1
	fmov	v6.2d, 1.0e+0
	sub	x1, x3, #3
	str	x0, [sp, 304]
	add	x0, x2, 2
	fmov	d19, 2.5e-1
	and	x1, x1, -2
	fmov	d18, 1.0e+0
	str	x0, [sp, 328]
	add	x6, x24, 1
	dup	v3.2d, v5.d[0]
	dup	v16.2d, v17.d[0]
	add	x0, x1, 4
	lsl	x5, x6, 1
	dup	v2.2d, v4.d[0]
	str	x0, [sp, 312]
	add	w0, w2, 2
	sub	x12, x26, #1
	str	w0, [sp, 324]
	sub	w0, w24, #2
	sub	x7, x5, #2
	sub	x8, x5, #1
	str	x3, [sp, 336]
	sub	x3, x3, #1
	add	x9, x5, 1
	add	x10, x24, 2
	lsl	x26, x20, 3
	mov	x11, 2
	mov	x4, 3
	stp	d8, d9, [sp, 96]
	.cfi_offset 73, -376
	.cfi_offset 72, -384
	stp	d10, d11, [sp, 112]
	.cfi_offset 75, -360
	.cfi_offset 74, -368
	stp	d12, d13, [sp, 128]
	.cfi_offset 77, -344
	.cfi_offset 76, -352
	mov	x14, x24
	str	d14, [sp, 144]
	.cfi_offset 78, -336
	str	x3, [sp, 296]
	str	w0, [sp, 320]
	str	x12, [sp, 416]
	str	x23, [sp, 440]
	.p2align 4,,15
.L4:
	mov	w0, 2
	mul	x1, x14, x4
	stp	x14, x4, [sp, 344]
	str	w0, [sp, 196]
	mul	x0, x5, x20
	mul	x12, x6, x20
	stp	x5, x7, [sp, 360]
	mul	x18, x8, x20
	stp	x8, x10, [sp, 376]
	add	x1, x1, 2
	mul	x15, x9, x20
	stp	x6, x9, [sp, 392]
	mul	x13, x1, x20
	add	x1, x0, 2
	add	x2, x19, x0, lsl 3
	str	x11, [sp, 408]
	mul	x30, x7, x20
	lsl	x1, x1, 3
	str	x1, [sp, 248]
	add	x1, x12, 2
	mul	x24, x11, x20
	add	x1, x28, x1, lsl 3
	str	x2, [sp, 200]
	mul	x17, x10, x20
	add	x2, x18, 2
	lsl	x2, x2, 3
	stp	x12, x15, [sp, 160]
	str	x1, [sp, 208]
	add	x1, x15, 2
	str	x2, [sp, 256]
	add	x2, x13, 2
	add	x1, x25, x1, lsl 3
	add	x2, x27, x2, lsl 3
	add	x3, x17, 2
	str	x13, [sp, 176]
	str	x1, [sp, 216]
	add	x1, x24, 2
	lsl	x3, x3, 3
	str	x2, [sp, 232]
	add	x2, x30, 2
	add	x1, x27, x1, lsl 3
	add	x2, x25, x2, lsl 3
	str	x3, [sp, 264]
	str	x1, [sp, 240]
	str	x2, [sp, 224]
	.p2align 4,,15
.L13:
	ldr	w1, [sp, 196]
	add	w1, w1, 1
	str	w1, [sp, 196]
	cmp	x20, 5
	beq	.L25
	ldr	x1, [sp, 184]
	ldp	x2, x4, [sp, 248]
	ldr	x5, [sp, 264]
	ldp	x14, x9, [sp, 208]
	ldr	x8, [sp, 224]
	add	x3, x1, x2
	ldr	x1, [sp, 200]
	add	x21, x2, x28
	add	x11, x2, x25
	add	x7, x2, x27
	ldr	x2, [sp, 296]
	add	x16, x4, x28
	add	x15, x5, x28
	add	x10, x4, x25
	add	x6, x5, x27
	ldp	x5, x4, [sp, 232]
	add	x13, x1, 16
	add	x12, x1, 24
	mov	x22, x1
	cmp	x2, 1
	bls	.L5
	ldr	q24, [x22], 32
	ldr	q25, [x1, 8]
	add	x23, x1, 40
	mov	x1, 2
	str	x0, [sp, 288]
.L6:
	ldp	q21, q1, [x16]
	ldp	q8, q20, [x21]
	ldr	q9, [x11]
	ldr	q27, [x8]
	ldp	q29, q14, [x15]
	ldp	q10, q26, [x12]
	mov	x2, x1
	add	x1, x1, 2
	ldp	q0, q22, [x13]
	ldp	q13, q12, [x14]
	add	x12, x12, 32
	ldp	q23, q28, [x10]
	ldp	q31, q30, [x9]
	add	x10, x10, 32
	add	x9, x9, 32
	add	x13, x13, 32
	add	x8, x8, 32
	fadd	v21.2d, v21.2d, v8.2d
	fadd	v20.2d, v20.2d, v1.2d
	ldr	q8, [x11, 16]
	stp	x22, x23, [sp, 272]
	fsub	v1.2d, v10.2d, v24.2d
	add	x5, x5, 32
	add	x14, x14, 32
	add	x15, x15, 32
	fsub	v11.2d, v0.2d, v25.2d
	fsub	v0.2d, v26.2d, v0.2d
	add	x16, x16, 32
	add	x21, x21, 32
	fsub	v10.2d, v22.2d, v10.2d
	fsub	v9.2d, v9.2d, v23.2d
	ldr	q23, [x6]
	add	x11, x11, 32
	fsub	v8.2d, v8.2d, v28.2d
	mov	v25.16b, v26.16b
	ldr	q26, [x8, -16]
	ldr	q28, [x7, 16]
	fsub	v31.2d, v31.2d, v27.2d
	mov	v24.16b, v22.16b
	ldr	q22, [x6, 16]
	ldr	q27, [x5, -32]
	fadd	v21.2d, v21.2d, v29.2d
	fadd	v20.2d, v20.2d, v14.2d
	ldr	q29, [x7]
	add	x6, x6, 32
	fmul	v1.2d, v1.2d, v2.2d
	add	x7, x7, 32
	add	x22, x22, 32
	add	x23, x23, 32
	fmul	v0.2d, v0.2d, v2.2d
	fsub	v30.2d, v30.2d, v26.2d
	ldr	q26, [x5, -16]
	fsub	v28.2d, v28.2d, v22.2d
	ldr	q22, [x3, 16]
	fsub	v29.2d, v29.2d, v23.2d
	ldr	q23, [x3]
	fadd	v21.2d, v21.2d, v13.2d
	fadd	v20.2d, v20.2d, v12.2d
	ldp	q13, q12, [x4]
	add	x4, x4, 32
	fmla	v1.2d, v3.2d, v11.2d
	fmla	v0.2d, v3.2d, v10.2d
	fsub	v27.2d, v27.2d, v13.2d
	fsub	v26.2d, v26.2d, v12.2d
	fmul	v21.2d, v21.2d, v7.2d
	fmul	v20.2d, v20.2d, v7.2d
	fmla	v1.2d, v9.2d, v3.2d
	fmla	v0.2d, v3.2d, v8.2d
	fdiv	v21.2d, v6.2d, v21.2d
	fdiv	v20.2d, v6.2d, v20.2d
	fmla	v1.2d, v31.2d, v2.2d
	fmla	v0.2d, v30.2d, v2.2d
	fmla	v1.2d, v29.2d, v3.2d
	fmla	v0.2d, v28.2d, v3.2d
	fmla	v1.2d, v27.2d, v2.2d
	fmla	v0.2d, v26.2d, v2.2d
	fmul	v21.2d, v21.2d, v16.2d
	fmul	v20.2d, v20.2d, v16.2d
	fmla	v23.2d, v1.2d, v21.2d
	fmla	v22.2d, v0.2d, v20.2d
	stp	q23, q22, [x3]
	ldr	x0, [sp, 312]
	add	x3, x3, 32
	cmp	x1, x0
	bne	.L6
	ldp	x22, x23, [sp, 272]
	ldr	x0, [sp, 288]
.L7:
	mov	x1, 0
	str	x17, [sp, 272]
	ldr	x17, [sp, 336]
	.p2align 4,,15
.L8:
	ldr	q20, [x16, x1]
	add	x2, x2, 1
	ldr	q1, [x21, x1]
	ldr	q29, [x15, x1]
	ldr	q22, [x22, x1]
	ldr	q0, [x12, x1]
	ldr	q26, [x14, x1]
	ldr	q21, [x23, x1]
	ldr	q25, [x13, x1]
	ldr	q24, [x11, x1]
	fadd	v1.2d, v1.2d, v20.2d
	ldr	q20, [x10, x1]
	ldr	q23, [x9, x1]
	fsub	v0.2d, v0.2d, v22.2d
	ldr	q30, [x8, x1]
	ldr	q22, [x7, x1]
	ldr	q28, [x6, x1]
	ldr	q27, [x4, x1]
	fsub	v25.2d, v25.2d, v21.2d
	ldr	q21, [x5, x1]
	fsub	v24.2d, v24.2d, v20.2d
	ldr	q20, [x3, x1]
	fsub	v23.2d, v23.2d, v30.2d
	fadd	v1.2d, v1.2d, v29.2d
	fsub	v22.2d, v22.2d, v28.2d
	fmul	v0.2d, v0.2d, v2.2d
	fsub	v21.2d, v21.2d, v27.2d
	fadd	v1.2d, v1.2d, v26.2d
	fmla	v0.2d, v25.2d, v3.2d
	fmul	v1.2d, v1.2d, v7.2d
	fmla	v0.2d, v24.2d, v3.2d
	fdiv	v1.2d, v6.2d, v1.2d
	fmla	v0.2d, v23.2d, v2.2d
	fmla	v0.2d, v22.2d, v3.2d
	fmla	v0.2d, v21.2d, v2.2d
	fmul	v1.2d, v1.2d, v16.2d
	fmla	v20.2d, v1.2d, v0.2d
	str	q20, [x3, x1]
	add	x1, x1, 16
	cmp	x2, x17
	bcc	.L8
	ldr	x1, [sp, 304]
	ldr	x17, [sp, 272]
	cbz	x1, .L9
	ldr	x2, [sp, 328]
	ldr	w3, [sp, 324]
.L11:
	add	x1, x0, x2
	add	x5, x18, x2
	add	x4, x17, x2
	lsl	x1, x1, 3
	lsl	x5, x5, 3
	add	w6, w3, 1
	ldr	d20, [x28, x1]
	ldr	d1, [x28, x5]
	lsl	x4, x4, 3
	add	x6, x0, w6, sxtw
	ldr	d21, [x25, x5]
	ldr	d30, [x28, x4]
	ldr	x5, [sp, 160]
	ldr	d0, [x19, x6, lsl 3]
	sub	w6, w3, #2
	sub	w3, w3, #1
	add	x6, x0, w6, sxtw
	add	x3, x0, w3, sxtw
	ldr	d25, [x19, x1]
	ldr	d24, [x25, x1]
	fadd	d1, d1, d20
	ldr	d22, [x27, x1]
	ldr	d28, [x27, x4]
	ldr	d20, [x19, x6, lsl 3]
	ldr	d31, [x19, x3, lsl 3]
	add	x3, x30, x2
	add	x5, x5, x2
	ldr	d29, [x25, x3, lsl 3]
	ldr	x3, [sp, 184]
	ldr	d26, [x28, x5, lsl 3]
	ldr	x5, [sp, 168]
	fsub	d24, d24, d21
	fsub	d22, d22, d28
	fsub	d0, d0, d20
	fsub	d25, d25, d31
	fadd	d1, d1, d30
	add	x1, x3, x1
	add	x5, x5, x2
	ldr	d20, [x1]
	ldr	d23, [x25, x5, lsl 3]
	ldr	x5, [sp, 176]
	fmul	d0, d0, d4
	fadd	d1, d1, d26
	fsub	d23, d23, d29
	add	x5, x5, x2
	add	x2, x24, x2
	ldr	d21, [x27, x5, lsl 3]
	ldr	d27, [x27, x2, lsl 3]
	fmadd	d0, d5, d25, d0
	fmul	d1, d1, d19
	fsub	d21, d21, d27
	fmadd	d0, d5, d24, d0
	fdiv	d1, d18, d1
	fmadd	d0, d4, d23, d0
	fmadd	d0, d5, d22, d0
	fmadd	d0, d4, d21, d0
	fmul	d1, d1, d17
	fmadd	d0, d0, d1, d20
	str	d0, [x1]
.L9:
	ldr	x1, [sp, 160]
	ldr	w2, [sp, 320]
	add	x0, x0, x20
	add	x18, x18, x20
	add	x17, x17, x20
	add	x30, x30, x20
	add	x24, x24, x20
	add	x1, x1, x20
	str	x1, [sp, 160]
	ldr	x1, [sp, 168]
	add	x1, x1, x20
	str	x1, [sp, 168]
	ldr	x1, [sp, 176]
	add	x1, x1, x20
	str	x1, [sp, 176]
	ldr	x1, [sp, 208]
	add	x1, x1, x26
	str	x1, [sp, 208]
	ldr	x1, [sp, 200]
	add	x1, x1, x26
	str	x1, [sp, 200]
	ldr	x1, [sp, 216]
	add	x1, x1, x26
	str	x1, [sp, 216]
	ldr	x1, [sp, 224]
	add	x1, x1, x26
	str	x1, [sp, 224]
	ldr	x1, [sp, 232]
	add	x1, x1, x26
	str	x1, [sp, 232]
	ldr	x1, [sp, 240]
	add	x1, x1, x26
	str	x1, [sp, 240]
	ldr	x1, [sp, 248]
	add	x1, x1, x26
	str	x1, [sp, 248]
	ldr	x1, [sp, 256]
	add	x1, x1, x26
	str	x1, [sp, 256]
	ldr	x1, [sp, 264]
	add	x1, x1, x26
	str	x1, [sp, 264]
	ldr	w1, [sp, 196]
	cmp	w1, w2
	bne	.L13
	ldp	x14, x4, [sp, 344]
	ldp	x5, x7, [sp, 360]
	ldp	x8, x10, [sp, 376]
	ldp	x6, x9, [sp, 392]
	ldp	x11, x0, [sp, 408]
	add	x4, x4, 1
	add	x5, x5, x14
	add	x7, x7, x14
	add	x8, x8, x14
	add	x10, x10, x14
	add	x6, x6, x14
	add	x9, x9, x14
	add	x11, x11, x14
	cmp	x4, x0
	bne	.L4
	ldr	x23, [sp, 440]
	ldp	d8, d9, [sp, 96]
	.cfi_restore 73
	.cfi_restore 72
	ldp	d10, d11, [sp, 112]
	.cfi_restore 75
	.cfi_restore 74
	ldp	d12, d13, [sp, 128]
	.cfi_restore 77
	.cfi_restore 76
	ldr	d14, [sp, 144]
	.cfi_restore 78
.L2:
	ldr	x20, [sp, 184]
	mov	x0, x20
	bl	dummy
	mov	x0, x19
	bl	dummy
	mov	x0, x25
	bl	dummy
	mov	x0, x27
	bl	dummy
	mov	x0, x28
	bl	dummy
	ldr	x0, [sp, 424]
	bl	dummy
	ldr	x0, [sp, 432]
	bl	dummy
	mov	x0, x23
	bl	dummy
	mov	x0, x20
	bl	free
	mov	x0, x19
	bl	free
	mov	x0, x25
	bl	free
	mov	x0, x27
	bl	free
	mov	x0, x28
	bl	free
	ldp	x19, x20, [sp, 16]
	ldp	x21, x22, [sp, 32]
	ldp	x23, x24, [sp, 48]
	ldp	x25, x26, [sp, 64]
	mov	w0, 0
	ldp	x27, x28, [sp, 80]
	ldp	x29, x30, [sp], 480
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 27
	.cfi_restore 28
	.cfi_restore 25
	.cfi_restore 26
	.cfi_restore 23
	.cfi_restore 24
	.cfi_restore 21
	.cfi_restore 22
	.cfi_restore 19
	.cfi_restore 20
	.cfi_def_cfa_offset 0
	ret
.L25:
	.cfi_def_cfa_offset 480
	.cfi_offset 19, -464
	.cfi_offset 20, -456
	.cfi_offset 21, -448
	.cfi_offset 22, -440
	.cfi_offset 23, -432
	.cfi_offset 24, -424
	.cfi_offset 25, -416
	.cfi_offset 26, -408
	.cfi_offset 27, -400
	.cfi_offset 28, -392
	.cfi_offset 29, -480
	.cfi_offset 30, -472
	.cfi_offset 72, -384
	.cfi_offset 73, -376
	.cfi_offset 74, -368
	.cfi_offset 75, -360
	.cfi_offset 76, -352
	.cfi_offset 77, -344
	.cfi_offset 78, -336
	mov	w3, 2
	mov	x2, 2
	b	.L11
.L5:
	add	x23, x1, 8
	mov	x2, 0
	b	.L7
	.cfi_endproc
.LFE5:
	.size	main, .-main
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
