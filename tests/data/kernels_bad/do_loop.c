/* bad: do-while loop inside the nest */
double a[N];
int k;
for (int i = 0; i < N; ++i) {
    do { a[i] = 0.0; } while (k);
}
