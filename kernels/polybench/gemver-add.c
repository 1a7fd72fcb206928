/* gemver (Polybench-like), third step: x = x + z. */
double x[N], z[N];

for (int i = 0; i < N; ++i)
    x[i] = x[i] + z[i];
