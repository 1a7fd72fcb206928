/* Gauss-Seidel 2D 5-point sweep: in-place update, a[j][i-1] and a[j-1][i] are already new */
double a[M][N];
double s;

for (int j = 1; j < M - 1; ++j)
    for (int i = 1; i < N - 1; ++i)
        a[j][i] = (a[j][i - 1] + a[j][i + 1] + a[j - 1][i] + a[j + 1][i]) * s;
