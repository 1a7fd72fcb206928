void triad(int n, double *restrict a, const double *restrict b, const double *restrict c, double s) {
  for (int i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}
long count(int n, const int *restrict x) {
  long k = 0;
  for (int i = 0; i < n; i++) k += x[i] > 0;
  return k;
}
