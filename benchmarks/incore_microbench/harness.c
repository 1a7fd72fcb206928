/* Timing harness for ubench.py: ./bench ITERATIONS REPETITIONS CALIB_ITERATIONS
 * Alternately calls calib() (dependent add chain) and bench() REPETITIONS times
 * and prints the minimum wall time of each in seconds (CLOCK_MONOTONIC). */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void bench(long iterations, double *buffer);
void calib(long iterations, double *buffer);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 1000;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    long citers = argc > 3 ? atol(argv[3]) : iters;
    double *buf;
    if (posix_memalign((void **)&buf, 4096, 65536) != 0)
        return 1;
    for (int i = 0; i < 65536 / 8; ++i)
        buf[i] = 1.0;
    /* pointer chase: buf[0] holds its own address */
    *(double **)buf = buf;
    double best = 1e30, cbest = 1e30;
    for (int r = 0; r < reps; ++r) {
        double t0 = now();
        calib(citers, buf);
        double t = now() - t0;
        if (t < cbest)
            cbest = t;
        t0 = now();
        bench(iters, buf);
        t = now() - t0;
        if (t < best)
            best = t;
    }
    printf("%.9e %.9e\n", best, cbest);
    return 0;
}
