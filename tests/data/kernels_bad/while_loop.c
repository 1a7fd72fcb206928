/* bad: while loop */
double a[N];
int i;
while (i < N)
    a[i] = 0.0;
