/* 3D long-range stencil: 8th-order wave-equation update, radius 4 along each axis */
double u[L][M][N], v[L][M][N], roc[L][M][N];
double c0, c1, c2, c3, c4;

for (int k = 4; k < L - 4; ++k)
    for (int j = 4; j < M - 4; ++j)
        for (int i = 4; i < N - 4; ++i) {
            double lap = c0 * v[k][j][i]
                       + c1 * (v[k][j][i - 1] + v[k][j][i + 1] + v[k][j - 1][i]
                               + v[k][j + 1][i] + v[k - 1][j][i] + v[k + 1][j][i])
                       + c2 * (v[k][j][i - 2] + v[k][j][i + 2] + v[k][j - 2][i]
                               + v[k][j + 2][i] + v[k - 2][j][i] + v[k + 2][j][i])
                       + c3 * (v[k][j][i - 3] + v[k][j][i + 3] + v[k][j - 3][i]
                               + v[k][j + 3][i] + v[k - 3][j][i] + v[k + 3][j][i])
                       + c4 * (v[k][j][i - 4] + v[k][j][i + 4] + v[k][j - 4][i]
                               + v[k][j + 4][i] + v[k - 4][j][i] + v[k + 4][j][i]);
            u[k][j][i] = 2.0 * v[k][j][i] - u[k][j][i] + roc[k][j][i] * lap;
        }
