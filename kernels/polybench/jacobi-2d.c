/* jacobi-2d (Polybench-like): one sweep of the 5-point average. */
double A[M][N], B[M][N];

for (int i = 1; i < M - 1; ++i)
    for (int j = 1; j < N - 1; ++j)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
