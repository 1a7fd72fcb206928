/* bad: a function definition instead of a bare kernel */
double a[N];
void kernel(void) {
    for (int i = 0; i < N; ++i)
        a[i] = 1.0;
}
