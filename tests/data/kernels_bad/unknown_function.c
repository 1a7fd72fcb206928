/* bad: call of a function that is not a math function */
double a[N];
for (int i = 0; i < N; ++i)
    a[i] = compute(i);
