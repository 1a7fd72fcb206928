#!/bin/sh
# Regenerates the AT&T/Intel twins of every kernel here (gcc 12.2, Debian 12.2.0-14) and
# the objdump listing of the IACA-marked loop. Run in this directory.
set -e
for c in triad sum stencil gather masked convert globals intsext; do
    gcc -O3 -march=skylake-avx512 -S -masm=att "$c.c" -o "$c.att.s"
    gcc -O3 -march=skylake-avx512 -S -masm=intel "$c.c" -o "$c.intel.s"
done
here=$(pwd)
tmp=$(mktemp -d)
gcc -c iaca_loop.intel.s -o "$tmp/iaca_loop.o"
(cd "$tmp" && objdump -d -M intel iaca_loop.o > "$here/iaca_loop.objdump")
rm -r "$tmp"
