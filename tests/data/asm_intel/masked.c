void masked(float *restrict a, const float *restrict b, long n)
{
    for (long i = 0; i < n; i++)
        if (b[i] > 0.0f)
            a[i] = b[i] * b[i];
}
