/* Update: a[i] = s * a[i] (in-place scaling, one load/store stream) */
double a[N];
double s;

for (int i = 0; i < N; ++i)
    a[i] = s * a[i];
