void stencil(double *restrict a, const double *restrict b, long n, long m)
{
    for (long j = 1; j < m - 1; j++)
        for (long i = 1; i < n - 1; i++)
            a[j * n + i] = 0.25 * (b[j * n + i - 1] + b[j * n + i + 1]
                                   + b[(j - 1) * n + i] + b[(j + 1) * n + i]);
}
