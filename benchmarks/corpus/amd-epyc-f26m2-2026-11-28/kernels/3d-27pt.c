/* 3D 27-point stencil: one weight each for centre, 6 faces, 12 edges and 8 corners */
double a[L][M][N];
double b[L][M][N];
double c0, c1, c2, c3;

for (int k = 1; k < L - 1; ++k)
    for (int j = 1; j < M - 1; ++j)
        for (int i = 1; i < N - 1; ++i)
            b[k][j][i] = c0 * a[k][j][i]
                       + c1 * (a[k - 1][j][i] + a[k][j - 1][i] + a[k][j][i - 1]
                              + a[k][j][i + 1] + a[k][j + 1][i] + a[k + 1][j][i])
                       + c2 * (a[k - 1][j - 1][i] + a[k - 1][j][i - 1] + a[k - 1][j][i + 1]
                              + a[k - 1][j + 1][i] + a[k][j - 1][i - 1] + a[k][j - 1][i + 1]
                              + a[k][j + 1][i - 1] + a[k][j + 1][i + 1] + a[k + 1][j - 1][i]
                              + a[k + 1][j][i - 1] + a[k + 1][j][i + 1] + a[k + 1][j + 1][i])
                       + c3 * (a[k - 1][j - 1][i - 1] + a[k - 1][j - 1][i + 1]
                              + a[k - 1][j + 1][i - 1] + a[k - 1][j + 1][i + 1]
                              + a[k + 1][j - 1][i - 1] + a[k + 1][j - 1][i + 1]
                              + a[k + 1][j + 1][i - 1] + a[k + 1][j + 1][i + 1]);
