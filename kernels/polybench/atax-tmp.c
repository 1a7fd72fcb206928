/* atax (Polybench-like), first step: tmp = A x (row-wise dot products). */
double A[M][N];
double x[N], tmp[M];

for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
        tmp[i] = tmp[i] + A[i][j] * x[j];
