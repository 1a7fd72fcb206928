/* gemver (Polybench-like), second step: x = x + beta A^T y. The inner loop j walks down
 * column i of A (stride NI elements): a strided load per iteration, reduction into x[i]. */
double A[NJ][NI];
double x[NI], y[NJ];
double beta;

for (int i = 0; i < NI; ++i)
    for (int j = 0; j < NJ; ++j)
        x[i] = x[i] + beta * A[j][i] * y[j];
