/* bad: struct type */
struct point { double x, y; } p;
double a[N];
for (int i = 0; i < N; ++i)
    a[i] = 1.0;
