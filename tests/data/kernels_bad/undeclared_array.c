/* bad: subscripted identifier that is not declared */
double a[N];
for (int i = 0; i < N; ++i)
    a[i] = c[i];
