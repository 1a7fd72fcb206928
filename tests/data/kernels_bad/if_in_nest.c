/* bad: if statement inside the loop nest */
double a[N], b[N];
for (int i = 0; i < N; ++i)
    if (b[i] > 0.0)
        a[i] = b[i];
