/* fdtd-2d (Polybench-like), E_x update from the magnetic field H_z. */
double ex[M][N], hz[M][N];

for (int i = 0; i < M; ++i)
    for (int j = 1; j < N; ++j)
        ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
