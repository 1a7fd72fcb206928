/* bad: 2D array accessed with one index */
double a[M][N];
for (int i = 0; i < N; ++i)
    a[i] = 1.0;
