/* gesummv (Polybench-like): y = alpha A x + beta B x; the two row dot products. */
double A[N][M], B[N][M];
double x[M], tmp[N], y[N];

for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j) {
        tmp[i] = tmp[i] + A[i][j] * x[j];
        y[i] = y[i] + B[i][j] * x[j];
    }
