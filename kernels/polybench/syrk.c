/* syrk (Polybench-like): C = alpha A A^T + beta C, lower triangle, in i-k-j order: the
 * inner loop j <= i walks down column k of A (stride M elements). The last R rows. */
double A[N][M], C[N][N];
double alpha;

for (int i = N - R; i < N; ++i)
    for (int k = 0; k < M; ++k)
        for (int j = 0; j <= i; ++j)
            C[i][j] = C[i][j] + alpha * A[i][k] * A[j][k];
