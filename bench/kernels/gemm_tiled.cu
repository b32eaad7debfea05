// Classic shared-memory tiled SGEMM (C = A*B, square, row-major): 16x16
// tiles of A and B staged through shared memory, a fully unrolled inner
// product, two barriers per tile step and edge guards on every load/store.
//@ kernel gemm_tiled
//@ grid 64 64
//@ block 16 16
//@ tol 1e-4
//@ arg in f32 1048576 rand
//@ arg in f32 1048576 rand
//@ arg out f32 1048576
//@ arg val i32 1024

#define TILE 16

extern "C" __global__ void __launch_bounds__(TILE * TILE)
gemm_tiled(const float *__restrict__ A, const float *__restrict__ B,
	   float *__restrict__ C, int n)
{
	__shared__ float As[TILE][TILE];
	__shared__ float Bs[TILE][TILE];

	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TILE + ty;
	int col = blockIdx.x * TILE + tx;
	float acc = 0.0f;

	for (int k0 = 0; k0 < n; k0 += TILE) {
		int ak = k0 + tx, bk = k0 + ty;

		As[ty][tx] = (row < n && ak < n) ? A[row * n + ak] : 0.0f;
		Bs[ty][tx] = (bk < n && col < n) ? B[bk * n + col] : 0.0f;
		__syncthreads();

#pragma unroll
		for (int k = 0; k < TILE; k++)
			acc += As[ty][k] * Bs[k][tx];
		__syncthreads();
	}

	if (row < n && col < n)
		C[row * n + col] = acc;
}
