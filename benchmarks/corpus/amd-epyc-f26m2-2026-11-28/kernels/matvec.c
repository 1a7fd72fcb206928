/* Dense matrix-vector product y = A x, row-wise (j innermost) */
/* A[i][j] and x[j] have unit stride in the inner loop and y[i] is loop-invariant there
 * (register accumulator); x is reused in every outer iteration if it fits into a cache. */
double A[M][N];
double x[N], y[M];

for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
        y[i] += A[i][j] * x[j];
