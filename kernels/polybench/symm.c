/* symm (Polybench-like): C = alpha A B + beta C with A symmetric (lower triangle stored);
 * the inner loop k < i walks down the columns j of C and B (stride NJ elements) and
 * accumulates temp2. The last R rows of an M-row problem. */
double A[M][M], B[M][NJ], C[M][NJ];
double alpha, temp2;

for (int i = M - R; i < M; ++i)
    for (int j = 0; j < NJ; ++j)
        for (int k = 0; k < i; ++k) {
            C[k][j] = C[k][j] + alpha * B[i][j] * A[i][k];
            temp2 = temp2 + B[k][j] * A[i][k];
        }
