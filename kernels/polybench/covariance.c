/* covariance (Polybench-like): cov[i][j] = sum over k of data[k][i] data[k][j] for j >= i;
 * the inner loop k walks down two columns of data (stride M elements). */
double data[N][M], cov[M][M];

for (int i = 0; i < M; ++i)
    for (int j = i; j < M; ++j)
        for (int k = 0; k < N; ++k)
            cov[i][j] = cov[i][j] + data[k][i] * data[k][j];
