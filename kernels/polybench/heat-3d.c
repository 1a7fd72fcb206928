/* heat-3d (Polybench-like): one explicit time step of the 3-D heat equation. */
double A[L][M][N], B[L][M][N];

for (int i = 1; i < L - 1; ++i)
    for (int j = 1; j < M - 1; ++j)
        for (int k = 1; k < N - 1; ++k)
            B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                       + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                       + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1])
                       + A[i][j][k];
