/* atax (Polybench-like), second step: y = y + A^T tmp, row by row (y[j] += A[i][j] tmp[i]). */
double A[M][N];
double y[N], tmp[M];

for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
        y[j] = y[j] + A[i][j] * tmp[i];
