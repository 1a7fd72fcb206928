/* bicg (Polybench-like): s = A^T r and q = A p in one sweep over the rows of A. */
double A[N][M];
double s[M], q[N], p[M], r[N];

for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j) {
        s[j] = s[j] + r[i] * A[i][j];
        q[i] = q[i] + A[i][j] * p[j];
    }
