/* bad: indirect index */
double a[N];
int b[N];
for (int i = 0; i < N; ++i)
    a[b[i]] = 1.0;
