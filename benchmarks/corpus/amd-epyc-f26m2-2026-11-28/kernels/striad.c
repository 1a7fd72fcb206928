/* Schoenauer triad: a[i] = b[i] + c[i] * d[i] (three load streams, one store stream) */
double a[N], b[N], c[N], d[N];

for (int i = 0; i < N; ++i)
    a[i] = b[i] + c[i] * d[i];
