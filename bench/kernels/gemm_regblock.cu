// Register-blocked SGEMM (C = A*B, square, row-major): a 16x16 block
// computes a 128x64 tile of C, each thread an 8x4 sub-tile held in a local
// float acc[8][4] array (32 accumulators plus 12 operand registers), with
// A staged transposed in shared memory so both operands are read as rows.
// High register pressure: the local arrays must be fully promoted.
//@ kernel gemm_regblock
//@ grid 16 8
//@ block 16 16
//@ tol 1e-4
//@ arg in f32 1048576 rand
//@ arg in f32 1048576 rand
//@ arg out f32 1048576
//@ arg val i32 1024

#define BM 128
#define BN 64
#define BK 8
#define TM 8
#define TN 4

extern "C" __global__ void __launch_bounds__(256)
gemm_regblock(const float *__restrict__ A, const float *__restrict__ B,
	      float *__restrict__ C, int n)
{
	__shared__ float As[BK][BM];	/* A tile, transposed: As[k][m] */
	__shared__ float Bs[BK][BN];

	int tx = threadIdx.x, ty = threadIdx.y;
	int tid = ty * 16 + tx;
	int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

	/* loader coordinates: A is 128x8 (4 per thread), B is 8x64 (2 per thread) */
	int ar = tid >> 1, ac = (tid & 1) * 4;
	int br = tid >> 5, bc = (tid & 31) * 2;

	float acc[TM][TN];
#pragma unroll
	for (int i = 0; i < TM; i++)
#pragma unroll
		for (int j = 0; j < TN; j++)
			acc[i][j] = 0.0f;

	for (int k0 = 0; k0 < n; k0 += BK) {
		int arow = row0 + ar;
#pragma unroll
		for (int i = 0; i < 4; i++) {
			int k = k0 + ac + i;
			As[ac + i][ar] = (arow < n && k < n) ? A[arow * n + k] : 0.0f;
		}
		int brow = k0 + br;
#pragma unroll
		for (int j = 0; j < 2; j++) {
			int c = col0 + bc + j;
			Bs[br][bc + j] = (brow < n && c < n) ? B[brow * n + c] : 0.0f;
		}
		__syncthreads();

#pragma unroll
		for (int k = 0; k < BK; k++) {
			float a[TM], b[TN];
#pragma unroll
			for (int i = 0; i < TM; i++)
				a[i] = As[k][ty * TM + i];
#pragma unroll
			for (int j = 0; j < TN; j++)
				b[j] = Bs[k][tx * TN + j];
#pragma unroll
			for (int i = 0; i < TM; i++)
#pragma unroll
				for (int j = 0; j < TN; j++)
					acc[i][j] += a[i] * b[j];
		}
		__syncthreads();
	}

#pragma unroll
	for (int i = 0; i < TM; i++) {
		int r = row0 + ty * TM + i;
#pragma unroll
		for (int j = 0; j < TN; j++) {
			int c = col0 + tx * TN + j;
			if (r < n && c < n)
				C[r * n + c] = acc[i][j];
		}
	}
}
