# Eight "add with carry" instructions (SUACA thesis (002), Sect. 4.3, converted from Intel to
# AT&T syntax) between IACA byte markers. Each adc reads and writes the carry flag, so all
# eight form one 8 cy loop-carried chain through flag.c (IACA 3.0 misses it and says 3.95 cy).
        movl    $111, %ebx      # IACA START MARKER
        .byte   100,103,144     # IACA START MARKER
        adcq    $1, %rax
        adcq    $1, %rbx
        adcq    $1, %rcx
        adcq    $1, %rdx
        adcq    $1, %r8
        adcq    $1, %r9
        adcq    $1, %r10
        adcq    $1, %r11
        movl    $222, %ebx      # IACA END MARKER
        .byte   100,103,144     # IACA END MARKER
