// C = A * B for n x n matrices, 16x16 tiles in shared memory.
#define TILE 16
__global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
	__shared__ float As[TILE][TILE], Bs[TILE][TILE];
	int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
	float acc = 0.0f;
	for (int t = 0; t < (n + TILE - 1) / TILE; t++) {
		int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
		As[threadIdx.y][threadIdx.x] = row < n && ac < n ? A[row * n + ac] : 0.0f;
		Bs[threadIdx.y][threadIdx.x] = br < n && col < n ? B[br * n + col] : 0.0f;
		__syncthreads();
#pragma unroll
		for (int k = 0; k < TILE; k++)
			acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
		__syncthreads();
	}
	if (row < n && col < n)
		C[row * n + col] = acc;
}
