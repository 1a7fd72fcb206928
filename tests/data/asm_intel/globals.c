double g[4096], h[4096];

void globals(long n)
{
    for (long i = 0; i < n; i++)
        g[i] = h[i] * 2.5 + 1.0;
}
