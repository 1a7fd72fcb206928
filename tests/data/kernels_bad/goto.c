/* bad: goto */
double a[N];
for (int i = 0; i < N; ++i) {
    a[i] = 0.0;
    goto done;
}
done: ;
