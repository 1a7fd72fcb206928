/* gemver (Polybench-like), first step: rank-2 update A = A + u1 v1^T + u2 v2^T. */
double A[N][M];
double u1[N], u2[N], v1[M], v2[M];

for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
        A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
