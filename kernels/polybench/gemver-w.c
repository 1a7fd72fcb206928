/* gemver (Polybench-like), last step: w = w + alpha A x (row-wise dot products). */
double A[N][M];
double w[N], x[M];
double alpha;

for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
        w[i] = w[i] + alpha * A[i][j] * x[j];
