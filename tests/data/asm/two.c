#define N 1000
double a[N], b[N], c[N];
void kernel(int n, int reps, double s) {
  for (int r = 0; r < reps; r++)
    for (int i = 0; i < n; i++)
      a[i] = b[i] + s * c[i];
}
