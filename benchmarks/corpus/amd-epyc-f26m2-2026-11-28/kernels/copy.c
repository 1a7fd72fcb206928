/* Copy: a[i] = b[i] (STREAM copy, one load stream and one store stream) */
double a[N], b[N];

for (int i = 0; i < N; ++i)
    a[i] = b[i];
