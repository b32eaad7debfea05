// Dense matrix-vector product y = A*x (row-major, 4096x4096): one warp per
// row, lanes stride the columns with coalesced __ldg loads, and the partial
// sums are combined with a __shfl_down_sync butterfly; lane 0 writes y.
//@ kernel gemv_warp
//@ grid 512
//@ block 256
//@ tol 1e-4
//@ arg in f32 16777216 rand
//@ arg in f32 4096 rand
//@ arg out f32 4096
//@ arg val i32 4096
//@ arg val i32 4096

extern "C" __global__ void __launch_bounds__(256)
gemv_warp(const float *__restrict__ A, const float *__restrict__ x,
	  float *__restrict__ y, int rows, int cols)
{
	int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	int lane = threadIdx.x & 31;

	if (warp >= rows)
		return;

	const float *a = A + (size_t)warp * cols;
	float sum = 0.0f;
	for (int c = lane; c < cols; c += 32)
		sum += __ldg(&a[c]) * __ldg(&x[c]);

#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		sum += __shfl_down_sync(0xffffffffu, sum, off);

	if (lane == 0)
		y[warp] = sum;
}
