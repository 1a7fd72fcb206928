void convert(double *restrict a, const long *restrict b, const int *restrict c, long n)
{
    for (long i = 0; i < n; i++)
        a[i] = (double)b[i] + (double)c[i];
}
