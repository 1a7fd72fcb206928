/* seidel-2d (Polybench-like): in-place 9-point Gauss-Seidel sweep; A[i][j-1] was written
 * in the previous iteration (a dependency through memory). */
double A[M][N];

for (int i = 1; i < M - 1; ++i)
    for (int j = 1; j < N - 1; ++j)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                 + A[i][j - 1] + A[i][j] + A[i][j + 1]
                 + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
