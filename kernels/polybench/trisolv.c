/* trisolv (Polybench-like): forward substitution with the lower triangle L, the update
 * x[i] -= L[i][j] x[j] for j < i; the last R rows of an N x N system (R small, so the
 * rows of the band have the same length up to R). */
double L[N][N];
double x[N];

for (int i = N - R; i < N; ++i)
    for (int j = 0; j < i; ++j)
        x[i] = x[i] - L[i][j] * x[j];
