/* STREAM triad: a[i] = b[i] + s * c[i] */
double a[N], b[N], c[N];
double s;

for (int i = 0; i < N; ++i)
    a[i] = b[i] + s * c[i];
