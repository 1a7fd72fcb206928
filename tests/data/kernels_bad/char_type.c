/* bad: char arrays are not supported */
char a[N];
for (int i = 0; i < N; ++i)
    a[i] = 1;
