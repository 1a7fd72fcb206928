/* bad: no loop */
double a[N], s;
s = a[0];
