/* Sum reduction: s += a[i] (one load stream, loop-carried dependency on s) */
double a[N];
double s;

for (int i = 0; i < N; ++i)
    s += a[i];
