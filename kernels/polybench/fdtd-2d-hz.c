/* fdtd-2d (Polybench-like), H_z update from the electric fields E_x and E_y. */
double ex[M][N], ey[M][N], hz[M][N];

for (int i = 0; i < M - 1; ++i)
    for (int j = 0; j < N - 1; ++j)
        hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
