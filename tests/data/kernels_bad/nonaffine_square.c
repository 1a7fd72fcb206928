/* bad: non-affine index i*i */
double a[N];
for (int i = 0; i < N; ++i)
    a[i * i] = 1.0;
