/* bad: non-affine index i*j */
double a[N][N];
for (int j = 0; j < N; ++j)
    for (int i = 0; i < N; ++i)
        a[j][i * j] = 1.0;
