/* mvt (Polybench-like), first product: x1 = x1 + A y1 (row-wise). */
double A[N][M];
double x1[N], y1[M];

for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
        x1[i] = x1[i] + A[i][j] * y1[j];
