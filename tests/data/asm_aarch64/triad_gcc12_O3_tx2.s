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
	stp	x21, x22, [sp, 32]
	.cfi_offset 19, -64
	.cfi_offset 20, -56
	.cfi_offset 21, -48
	.cfi_offset 22, -40
	add	x22, sp, 72
	str	x23, [sp, 48]
	.cfi_offset 23, -32
	bl	kc_constant
	lsl	x19, x0, 3
	mov	x23, x0
	mov	x0, 64
	add	x19, x19, 63
	and	x19, x19, -64
	mov	x1, x19
	bl	aligned_alloc
	mov	x21, x0
	mov	x1, x23
	bl	kc_init_double
	mov	x0, 64
	mov	x1, x19
	bl	aligned_alloc
	mov	x20, x0
	mov	x1, x23
	bl	kc_init_double
	mov	x0, 64
	mov	x1, x19
	bl	aligned_alloc
	mov	x19, x0
	mov	x1, x23
	bl	kc_init_double
	mov	x1, 1
	mov	x0, x22
	bl	kc_init_double
	cmp	x23, 0
	ble	.L2
	ldr	d2, [sp, 72]
	cmp	x23, 1
	beq	.L6
	dup	v3.2d, v2.d[0]
	lsr	x0, x23, 1
	mov	x2, 0
	lsl	x0, x0, 4
	.p2align 4,,15
.L4:
	ldr	q1, [x19, x2]
	ldr	q0, [x20, x2]
	fmla	v0.2d, v1.2d, v3.2d
	str	q0, [x21, x2]
	add	x2, x2, 16
	cmp	x0, x2
	bne	.L4
	and	x1, x23, -2
	tbz	x23, 0, .L2
.L3:
	sbfiz	x1, x1, 3, 32
	ldr	d1, [x19, x1]
	ldr	d0, [x20, x1]
	fmadd	d0, d2, d1, d0
	str	d0, [x21, x1]
.L2:
	mov	x0, x21
	bl	dummy
	mov	x0, x20
	bl	dummy
	mov	x0, x19
	bl	dummy
	mov	x0, x22
	bl	dummy
	mov	x0, x21
	bl	free
	mov	x0, x20
	bl	free
	mov	x0, x19
	bl	free
	ldp	x19, x20, [sp, 16]
	ldp	x21, x22, [sp, 32]
	ldr	x23, [sp, 48]
	mov	w0, 0
	ldp	x29, x30, [sp], 80
	.cfi_remember_state
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 23
	.cfi_restore 21
	.cfi_restore 22
	.cfi_restore 19
	.cfi_restore 20
	.cfi_def_cfa_offset 0
	ret
.L6:
	.cfi_restore_state
	mov	w1, 0
	b	.L3
	.cfi_endproc
.LFE5:
	.size	main, .-main
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
