/* Kahan-compensated dot product of a and b: sum s with running compensation c */
double a[N], b[N];
double s, c;

for (int i = 0; i < N; ++i) {
    double y = a[i] * b[i] - c;   /* product corrected by the lost low part */
    double t = s + y;             /* new running sum, low bits of y may be lost */
    c = (t - s) - y;              /* recover what was lost (negated) */
    s = t;
}
