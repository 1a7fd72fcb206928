void intsext(int *restrict a, const int *restrict b, const short *restrict c, long n)
{
    for (long i = 0; i < n; i++)
        a[i] = b[i] * 3 + c[i] + (a[i] >> 2);
}
