/* bad: loop step of zero */
double a[N];
for (int i = 0; i < N; i += 0)
    a[i] = 1.0;
