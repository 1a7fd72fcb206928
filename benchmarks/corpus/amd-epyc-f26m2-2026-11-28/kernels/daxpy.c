/* DAXPY: a[i] = a[i] + s * b[i] (BLAS-1 axpy, y updated in place) */
double a[N], b[N];
double s;

for (int i = 0; i < N; ++i)
    a[i] = a[i] + s * b[i];
