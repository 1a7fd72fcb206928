/* mvt (Polybench-like), second product: x2 = x2 + A^T y2; the inner loop j walks down
 * column i of A (stride NI elements). */
double A[NJ][NI];
double x2[NI], y2[NJ];

for (int i = 0; i < NI; ++i)
    for (int j = 0; j < NJ; ++j)
        x2[i] = x2[i] + A[j][i] * y2[j];
