// Sparse matrix-vector product y = A*x in CSR, one thread per row: the
// row_ptr bounds drive a data-dependent loop with an indirect (gathered)
// load of x through col_idx. 524288 rows, 16 nonzeros each.
//@ kernel spmv_csr_scalar
//@ grid 2048
//@ block 256
//@ arg in i32 524289 iota:16
//@ arg in i32 8388608 mod:524288
//@ arg in f32 8388608 rand
//@ arg in f32 524288 rand
//@ arg out f32 524288
//@ arg val i32 524288

extern "C" __global__ void __launch_bounds__(256)
spmv_csr_scalar(const int *__restrict__ row_ptr, const int *__restrict__ col_idx,
		const float *__restrict__ vals, const float *__restrict__ x,
		float *__restrict__ y, int nrows)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;

	if (row < nrows) {
		int start = row_ptr[row], end = row_ptr[row + 1];
		float sum = 0.0f;
		for (int j = start; j < end; j++)
			sum += vals[j] * __ldg(&x[col_idx[j]]);
		y[row] = sum;
	}
}
