/* 3D 7-point Jacobi stencil: centre weight c0, weight c1 for the six face neighbours */
double a[L][M][N];
double b[L][M][N];
double c0, c1;

for (int k = 1; k < L - 1; ++k)
    for (int j = 1; j < M - 1; ++j)
        for (int i = 1; i < N - 1; ++i)
            b[k][j][i] = c0 * a[k][j][i]
                       + c1 * (a[k][j][i - 1] + a[k][j][i + 1]
                             + a[k][j - 1][i] + a[k][j + 1][i]
                             + a[k - 1][j][i] + a[k + 1][j][i]);
