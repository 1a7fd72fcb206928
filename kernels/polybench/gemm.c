/* gemm (Polybench-like): C = alpha A B + beta C, the update loop in i-k-j order:
 * a row of C gets alpha * A[i][k] times row k of B (unit stride in the inner loop j). */
double A[NI][NK], B[NK][NJ], C[NI][NJ];
double alpha;

for (int i = 0; i < NI; ++i)
    for (int k = 0; k < NK; ++k)
        for (int j = 0; j < NJ; ++j)
            C[i][j] += alpha * A[i][k] * B[k][j];
