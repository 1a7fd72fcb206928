/* Matrix square c += a * a, written for the tests (issue 12): gcc vectorises the j loop
 * around the innermost k loop (outer-loop vectorisation). */
double a[N][N], c[N][N];
for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
        for (int k = 0; k < N; ++k)
            c[i][j] += a[i][k] * a[k][j];
