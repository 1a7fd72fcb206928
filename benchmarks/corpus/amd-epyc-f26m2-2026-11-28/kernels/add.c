/* Add: a[i] = b[i] + c[i] (STREAM add, two load streams and one store stream) */
double a[N], b[N], c[N];

for (int i = 0; i < N; ++i)
    a[i] = b[i] + c[i];
