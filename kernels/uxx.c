/* uxx: 4th-order staggered-grid velocity update of an elastic wave code (AWP-ODC style) */
double u1[L][M][N];
double xx[L][M][N], xy[L][M][N], xz[L][M][N];
double d1[L][M][N];
double c1, c2, dth;

for (int k = 2; k < L - 2; ++k)
    for (int j = 2; j < M - 2; ++j)
        for (int i = 2; i < N - 2; ++i) {
            /* inverse of the density averaged over the four cells sharing this edge */
            double d = 1.0 / (0.25 * (d1[k][j][i] + d1[k][j - 1][i]
                                    + d1[k - 1][j][i] + d1[k - 1][j - 1][i]));
            u1[k][j][i] = u1[k][j][i] + dth * d
                        * (c1 * (xx[k][j][i] - xx[k][j][i - 1])
                         + c2 * (xx[k][j][i + 1] - xx[k][j][i - 2])
                         + c1 * (xy[k][j][i] - xy[k][j - 1][i])
                         + c2 * (xy[k][j + 1][i] - xy[k][j - 2][i])
                         + c1 * (xz[k][j][i] - xz[k - 1][j][i])
                         + c2 * (xz[k + 1][j][i] - xz[k - 2][j][i]));
        }
