/* Transposed matrix-vector product y = A^T x, column-oriented (i innermost) */
/* The outer loop j walks the rows of A, the inner loop i streams row j with unit stride
 * and updates all of y. x[j] is loop-invariant in the inner loop; y[i] is read and written
 * in every outer iteration, so it is reused from cache when it fits (layer condition). */
double A[M][N];
double x[M], y[N];

for (int j = 0; j < M; ++j)
    for (int i = 0; i < N; ++i)
        y[i] += A[j][i] * x[j];
