/* bad: two separate loop nests */
double a[N];
for (int i = 0; i < N; ++i)
    a[i] = 1.0;
for (int i = 0; i < N; ++i)
    a[i] = 2.0 * a[i];
