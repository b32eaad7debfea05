// Sparse matrix-vector product y = A*x in CSR, one warp per row ("CSR
// vector"): lanes stride the row's nonzeros with coalesced loads of
// col_idx/vals, gather x, and reduce with __shfl_down_sync. 131072 rows,
// 64 nonzeros each.
//@ kernel spmv_csr_vector
//@ grid 16384
//@ block 256
//@ tol 1e-4
//@ arg in i32 131073 iota:64
//@ arg in i32 8388608 mod:131072
//@ arg in f32 8388608 rand
//@ arg in f32 131072 rand
//@ arg out f32 131072
//@ arg val i32 131072

extern "C" __global__ void __launch_bounds__(256)
spmv_csr_vector(const int *__restrict__ row_ptr, const int *__restrict__ col_idx,
		const float *__restrict__ vals, const float *__restrict__ x,
		float *__restrict__ y, int nrows)
{
	int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	int lane = threadIdx.x & 31;

	if (row >= nrows)
		return;

	int start = row_ptr[row], end = row_ptr[row + 1];
	float sum = 0.0f;
	for (int j = start + lane; j < end; j += 32)
		sum += vals[j] * __ldg(&x[col_idx[j]]);

#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		sum += __shfl_down_sync(0xffffffffu, sum, off);

	if (lane == 0)
		y[row] = sum;
}
