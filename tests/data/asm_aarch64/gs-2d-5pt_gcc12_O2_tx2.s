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
	stp	x29, x30, [sp, -80]!
	.cfi_def_cfa_offset 80
	.cfi_offset 29, -80
	.cfi_offset 30, -72
	mov	w2, 1
	mov	x29, sp
	stp	x19, x20, [sp, 16]
	.cfi_offset 19, -64
	.cfi_offset 20, -56
	mov	w19, w0
	mov	x20, x1
	stp	x21, x22, [sp, 32]
	str	x23, [sp, 48]
	.cfi_offset 21, -48
	.cfi_offset 22, -40
	.cfi_offset 23, -32
	bl	kc_constant
	mov	w2, 2
	mov	x21, x0
	mov	x1, x20
	mov	w0, w19
	bl	kc_constant
	add	x20, sp, 72
	mul	x23, x21, x0
	mov	x19, x0
	mov	x0, 64
	lsl	x1, x23, 3
	add	x1, x1, 63
	and	x1, x1, -64
	bl	aligned_alloc
	mov	x22, x0
	mov	x1, x23
	bl	kc_init_double
	mov	x1, 1
	mov	x0, x20
	bl	kc_init_double
	cmp	x21, 2
	ble	.L2
	ldr	d4, [sp, 72]
	lsl	x10, x19, 3
	sub	x2, x22, #8
	sub	w11, w21, #1
	add	x5, x10, 8
	add	x2, x2, x19, lsl 4
	lsl	x9, x19, 1
	mov	x6, x19
	add	x5, x22, x5
	mov	x8, 0
	mov	w7, 1
	.p2align 4,,15
.L3:
	add	w7, w7, 1
	cmp	x19, 2
	ble	.L6
	ldr	d0, [x5, -8]
	sub	x4, x8, x6
	sub	x3, x9, x6
	mov	x1, x5
	.p2align 4,,15
.L4:
	ldr	d3, [x1, 8]
	ldr	d2, [x1, x4, lsl 3]
	ldr	d1, [x1, x3, lsl 3]
	fadd	d0, d0, d3
	fadd	d0, d0, d2
	fadd	d0, d0, d1
	fmul	d0, d0, d4
	str	d0, [x1], 8
	cmp	x2, x1
	bne	.L4
.L6:
	add	x5, x5, x10
	add	x6, x6, x19
	add	x8, x8, x19
	add	x9, x9, x19
	add	x2, x2, x10
	cmp	w11, w7
	bne	.L3
.L2:
	mov	x0, x22
	bl	dummy
	mov	x0, x20
	bl	dummy
	mov	x0, x22
	bl	free
	ldp	x19, x20, [sp, 16]
	ldp	x21, x22, [sp, 32]
	ldr	x23, [sp, 48]
	mov	w0, 0
	ldp	x29, x30, [sp], 80
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 23
	.cfi_restore 21
	.cfi_restore 22
	.cfi_restore 19
	.cfi_restore 20
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE5:
	.size	main, .-main
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
