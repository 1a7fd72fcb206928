/* bad: non-constant loop step */
double a[N];
for (int i = 0; i < N; i += M)
    a[i] = 1.0;
