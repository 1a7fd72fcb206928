#include <math.h>
double a[10000], b[10000], c[10000], d[10000];
double M[200][200], N[200][200];
int idx[10000];
float fa[10000], fb[10000];
void triad(int n, double s) { for (int i = 0; i < n; i++) a[i] = b[i] + s * c[i]; }
double sum(int n) { double r = 0; for (int i = 0; i < n; i++) r += a[i]; return r; }
void stencil(int n) {
  for (int j = 1; j < n - 1; j++)
    for (int i = 1; i < n - 1; i++)
      M[j][i] = 0.25 * (N[j-1][i] + N[j+1][i] + N[j][i-1] + N[j][i+1]);
}
void gather(int n) { for (int i = 0; i < n; i++) a[i] = b[idx[i]] * 2.0; }
long isum(int n) { long s = 0; for (int i = 0; i < n; i++) s += idx[i] * 3 + (idx[i] >> 2); return s; }
void cond(int n) { for (int i = 0; i < n; i++) if (a[i] > 0) b[i] = sqrt(a[i]); else b[i] = -a[i]; }
void fl(int n) { for (int i = 0; i < n; i++) fa[i] = fb[i] * fa[i] + 1.0f; }
void mm(int n) { for (int i=0;i<n;i++) for (int k=0;k<n;k++) for (int j=0;j<n;j++) M[i][j] += N[i][k]*N[k][j]; }
int divs(int n, int m) { int s=0; for (int i=1;i<n;i++) s += m / i + m % i; return s; }
void cvt(int n) { for (int i=0;i<n;i++) a[i] = (double)idx[i] + fa[i]; }
unsigned long long addc(unsigned long long *x, unsigned long long *y, int n) {
  unsigned char c = 0; unsigned long long r=0;
  for (int i=0;i<n;i++) { r += __builtin_add_overflow(x[i], y[i], &x[i]); }
  return r;
}
double maxv(int n) { double m = a[0]; for (int i=0;i<n;i++) m = a[i] > m ? a[i] : m; return m; }
void memops(int n) { for (int i=0;i<n;i++) { idx[i] += 3; fa[i] = fb[i] / 3.0f; } }
struct P { double x, y, z; int id; };
double pairs(struct P *p, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) e += p[i].x * p[j].y - p[i].z;
  return e;
}
void jacobi3d(int n, double (*restrict u)[64][64], double (*restrict v)[64][64]) {
  for (int k = 1; k < n - 1; k++)
    for (int j = 1; j < 63; j++)
      for (int i = 1; i < 63; i++)
        v[k][j][i] = (u[k-1][j][i] + u[k+1][j][i] + u[k][j-1][i] + u[k][j+1][i] + u[k][j][i-1] + u[k][j][i+1]) * (1.0/6.0);
}
float dotf(int n, const float *x, const float *y) { float s = 0; for (int i = 0; i < n; i++) s += x[i] * y[i]; return s; }
void scale_int(int n, short *restrict x, const unsigned char *restrict y) { for (int i = 0; i < n; i++) x[i] = (short)(y[i] * 3 - 7); }
long long mulhi(int n, const unsigned long long *x) { unsigned __int128 s = 0; for (int i = 0; i < n; i++) s += (unsigned __int128)x[i] * x[i]; return (long long)(s >> 64); }
void cmplx(int n, _Complex double *restrict z, const _Complex double *restrict w) { for (int i = 0; i < n; i++) z[i] = z[i] * w[i]; }
int search(int n, const int *x, int key) { for (int i = 0; i < n; i++) if (x[i] == key) return i; return -1; }
