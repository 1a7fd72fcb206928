/* bad: pointer declaration */
double *a;
for (int i = 0; i < N; ++i)
    a[i] = 0.0;
