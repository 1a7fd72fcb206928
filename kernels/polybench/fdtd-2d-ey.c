/* fdtd-2d (Polybench-like), E_y update from the magnetic field H_z. */
double ey[M][N], hz[M][N];

for (int i = 1; i < M; ++i)
    for (int j = 0; j < N; ++j)
        ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
