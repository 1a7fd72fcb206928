double sum(const double *a, long n)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += a[i];
    return s;
}
