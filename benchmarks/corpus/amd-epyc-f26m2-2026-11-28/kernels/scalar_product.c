/* Scalar (dot) product: s += a[i] * b[i] */
double a[N], b[N];
double s;

for (int i = 0; i < N; ++i)
    s += a[i] * b[i];
