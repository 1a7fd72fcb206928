long gather(const int *a, const int *ix, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += a[ix[i]];
    return s;
}
