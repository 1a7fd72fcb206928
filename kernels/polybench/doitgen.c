/* doitgen (Polybench-like), the multi-resolution kernel: sum[p] = sum over s of
 * A[r][q][s] C4[s][p]; the inner loop s walks down column p of C4 (stride NP elements). */
double A[NR][NQ][NS], C4[NS][NP];
double sum[NP];

for (int r = 0; r < NR; ++r)
    for (int q = 0; q < NQ; ++q)
        for (int p = 0; p < NP; ++p)
            for (int s = 0; s < NS; ++s)
                sum[p] = sum[p] + A[r][q][s] * C4[s][p];
