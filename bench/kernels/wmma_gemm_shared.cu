// Tensor-core GEMM (C = A*B, 1024x1024, wmma 16x16x16 halves, float
// accumulators) staged through shared memory, as the CUDA samples'
// *TensorCoreGemm kernels are: each block converts a 64x32 tile of A and a
// 32x64 tile of B to half in shared memory, each of its 4 warps loads its
// fragments from there (wmma::load_matrix_sync on a shared address) and
// accumulates a 32x32 block of C, which goes back to global memory through
// a shared tile (wmma::store_matrix_sync).  With the WMMA loads and stores
// on generic pointers, every address is 64 bits and every access a generic
// one; cicc uses the .shared variants.  Written with the builtins <mma.h>
// wraps (row-major fragments: layout 0), so that it needs no CUDA header.
//@ kernel wmma_gemm_shared
//@ grid 16 16
//@ block 128
//@ tol 1e-3
//@ arg out f32 1048576
//@ arg in f32 1048576 rand
//@ arg in f32 1048576 rand
//@ arg val i32 1024

#define BM 64
#define BN 64
#define BK 32
#define PAD 8 /* halves: rows stay 32-byte aligned, banks staggered */

__device__ __forceinline__ unsigned short
to_half(float x)
{
	unsigned short h;

	asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
	return h;
}

extern "C" __global__ void __launch_bounds__(128)
wmma_gemm_shared(float *__restrict__ c, const float *__restrict__ a, const float *__restrict__ b, int n)
{
	__shared__ __attribute__((aligned(128))) unsigned short as[BM][BK + PAD];
	__shared__ __attribute__((aligned(128))) unsigned short bs[BK][BN + PAD];
	__shared__ __attribute__((aligned(128))) float cs[BM][BN + 4];
	int warp = threadIdx.x / 32, wr = warp / 2, wc = warp % 2;
	int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
	float acc[2][2][8];

#pragma unroll
	for (int i = 0; i < 2; i++)
#pragma unroll
		for (int j = 0; j < 2; j++)
#pragma unroll
			for (int t = 0; t < 8; t++)
				acc[i][j][t] = 0.0f;

	for (int k0 = 0; k0 < n; k0 += BK) {
		for (int i = threadIdx.x; i < BM * BK; i += blockDim.x) {
			int r = i / BK, k = i % BK;
			as[r][k] = to_half(a[(size_t)(row0 + r) * n + k0 + k]);
		}
		for (int i = threadIdx.x; i < BK * BN; i += blockDim.x) {
			int k = i / BN, col = i % BN;
			bs[k][col] = to_half(b[(size_t)(k0 + k) * n + col0 + col]);
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < BK; kk += 16) {
			int fa[2][8], fb[2][8];

#pragma unroll
			for (int i = 0; i < 2; i++)
				__hmma_m16n16k16_ld_a(fa[i], (const int *)&as[wr * 32 + i * 16][kk], BK + PAD, 0);
#pragma unroll
			for (int j = 0; j < 2; j++)
				__hmma_m16n16k16_ld_b(fb[j], (const int *)&bs[kk][wc * 32 + j * 16], BN + PAD, 0);
#pragma unroll
			for (int i = 0; i < 2; i++)
#pragma unroll
				for (int j = 0; j < 2; j++)
					__hmma_m16n16k16_mma_f32f32(acc[i][j], fa[i], fb[j], acc[i][j], 0, 0);
		}
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < 2; i++)
#pragma unroll
		for (int j = 0; j < 2; j++)
			__hmma_m16n16k16_st_c_f32(&cs[wr * 32 + i * 16][wc * 32 + j * 16], acc[i][j], BN + 4, 0);
	__syncthreads();
	for (int i = threadIdx.x; i < BM * BN; i += blockDim.x) {
		int r = i / BN, col = i % BN;
		c[(size_t)(row0 + r) * n + col0 + col] = cs[r][col];
	}
}
