/* jacobi-1d (Polybench-like): one sweep of the 3-point average. */
double A[N], B[N];

for (int i = 1; i < N - 1; ++i)
    B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
