/* Streaming zmm loops through L1-resident arrays, rolled and unrolled, aligned and
 * crossing a 64-B code boundary (session 2026-11-24, Zen 5 EPYC VM). Build and run:
 *   gcc -O2 -mavx512f zen5_stream.c -o zen5_stream && chrt -f 50 taskset -c 1 ./zen5_stream
 * Cycles from a dependent add chain in the same process (ticks per core cycle). */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <x86intrin.h>
// Streaming zmm loops through L1-resident arrays (16 KB each), indexed addressing as gcc emits.
static double tick_per_cycle(void) {
  long n = 20000000, x = 0, i = 0; uint64_t t0 = __rdtsc();
  __asm__ volatile(".p2align 6\n1: addq %%rdx,%0\n addq %%rdx,%0\n addq %%rdx,%0\n addq %%rdx,%0\n addq $1, %1\n cmpq %2, %1\n jne 1b"
    : "+r"(x), "+r"(i) : "r"(n), "d"(1L) : "cc");
  return (double)(__rdtsc() - t0) / (4.0 * n);
}
#define LOOP(body, step) \
  for (long r = 0; r < reps; ++r) { long i = 0; \
    __asm__ volatile(".p2align 6\n" SKIP "1:\n" body "addq $" #step ", %0\n cmpq %1, %0\n jne 1b" \
      : "+r"(i) : "r"(n), "r"(a), "r"(b), "r"(c) : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3"); }
#define L1 "vmovapd (%2,%0), %%zmm0\n"
#define RUN(name, body, step, per) { uint64_t t0 = __rdtsc(); LOOP(body, step); \
  double cy = (double)(__rdtsc() - t0) / tick / reps / (n / (double)step) / per; \
  printf("%-34s %.3f cy per zmm group\n", name, cy); }
int main(void) {
  long n = 16384, reps = 40000;
  char *a = aligned_alloc(4096, 65536), *b = aligned_alloc(4096, 65536), *c = aligned_alloc(4096, 65536);
  for (int k = 0; k < 65536; ++k) { a[k] = 1; b[k] = 2; c[k] = 3; }
  b += 64; c += 128;
  double tick = tick_per_cycle();
  printf("tsc ticks per core cycle %.3f\n", tick);
#define SKIP ""
  RUN("rolled load", "vmovapd (%2,%0), %%zmm0\n", 64, 1);
  RUN("rolled store", "vmovapd %%zmm1, (%3,%0)\n", 64, 1);
  RUN("rolled copy 1L+1S", "vmovapd (%2,%0), %%zmm0\n vmovapd %%zmm0, (%3,%0)\n", 64, 1);
  RUN("rolled triad 2L+1S", "vmovapd (%2,%0), %%zmm0\n vaddpd (%4,%0), %%zmm0, %%zmm0\n vmovapd %%zmm0, (%3,%0)\n", 64, 1);
  RUN("rolled 3L+1S", "vmovapd (%2,%0), %%zmm0\n vaddpd (%4,%0), %%zmm0, %%zmm0\n vaddpd (%3,%0), %%zmm0, %%zmm2\n vmovapd %%zmm2, (%3,%0)\n", 64, 1);
  RUN("rolled nothing", "", 64, 1);
  RUN("x4 copy 1L+1S", "vmovapd (%2,%0), %%zmm0\n vmovapd %%zmm0, (%3,%0)\n vmovapd 64(%2,%0), %%zmm1\n vmovapd %%zmm1, 64(%3,%0)\n vmovapd 128(%2,%0), %%zmm2\n vmovapd %%zmm2, 128(%3,%0)\n vmovapd 192(%2,%0), %%zmm3\n vmovapd %%zmm3, 192(%3,%0)\n", 256, 4);
  RUN("x4 triad 2L+1S", "vmovapd (%2,%0), %%zmm0\n vaddpd (%4,%0), %%zmm0, %%zmm0\n vmovapd %%zmm0, (%3,%0)\n vmovapd 64(%2,%0), %%zmm1\n vaddpd 64(%4,%0), %%zmm1, %%zmm1\n vmovapd %%zmm1, 64(%3,%0)\n vmovapd 128(%2,%0), %%zmm2\n vaddpd 128(%4,%0), %%zmm2, %%zmm2\n vmovapd %%zmm2, 128(%3,%0)\n vmovapd 192(%2,%0), %%zmm3\n vaddpd 192(%4,%0), %%zmm3, %%zmm3\n vmovapd %%zmm3, 192(%3,%0)\n", 256, 4);
  RUN("x4 loads 2L", "vmovapd (%2,%0), %%zmm0\n vaddpd (%4,%0), %%zmm0, %%zmm0\n vmovapd 64(%2,%0), %%zmm1\n vaddpd 64(%4,%0), %%zmm1, %%zmm1\n vmovapd 128(%2,%0), %%zmm2\n vaddpd 128(%4,%0), %%zmm2, %%zmm2\n vmovapd 192(%2,%0), %%zmm3\n vaddpd 192(%4,%0), %%zmm3, %%zmm3\n", 256, 4);
#undef SKIP
#define SKIP ".skip 52, 0x90\n"
  RUN("rolled copy, crossing 64B", "vmovapd (%2,%0), %%zmm0\n vmovapd %%zmm0, (%3,%0)\n", 64, 1);
  RUN("rolled triad, crossing 64B", "vmovapd (%2,%0), %%zmm0\n vaddpd (%4,%0), %%zmm0, %%zmm0\n vmovapd %%zmm0, (%3,%0)\n", 64, 1);
  RUN("rolled nothing, crossing", "", 64, 1);
  return 0;
}
