void triad(double *restrict a, const double *restrict b, const double *restrict c,
           double s, long n)
{
    for (long i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}
