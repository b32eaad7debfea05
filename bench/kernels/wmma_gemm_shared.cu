// Tensor-core GEMM (C = A*B, 1024x1024, wmma 16x16x16 halves, float
// accumulators) staged through shared memory, as the CUDA samples'
// *TensorCoreGemm kernels are: each block converts a 64x32 tile of A and a
// 32x64 tile of B to half in shared memory, each of its 4 warps loads its
// fragments from there (wmma::load_matrix_sync on a shared address) and
// accumulates a 32x32 block of C, which goes back to global memory through
// a shared tile (wmma::store_matrix_sync).  With the WMMA loads and stores
// on generic pointers, every address is 64 bits and every access a generic
// one; cicc uses the .shared variants.
//@ kernel wmma_gemm_shared
//@ grid 16 16
//@ block 128
//@ tol 1e-3
//@ arg out f32 1048576
//@ arg in f32 1048576 rand
//@ arg in f32 1048576 rand
//@ arg val i32 1024

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define BM 64
#define BN 64
#define BK 32
#define PAD 8 /* halves: rows stay 32-byte aligned, banks staggered */

extern "C" __global__ void __launch_bounds__(128)
wmma_gemm_shared(float *__restrict__ c, const float *__restrict__ a, const float *__restrict__ b, int n)
{
	__shared__ __align__(128) half as[BM][BK + PAD];
	__shared__ __align__(128) half bs[BK][BN + PAD];
	__shared__ __align__(128) float cs[BM][BN + 4];
	int warp = threadIdx.x / 32, wr = warp / 2, wc = warp % 2;
	int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];

#pragma unroll
	for (int i = 0; i < 2; i++)
#pragma unroll
		for (int j = 0; j < 2; j++)
			wmma::fill_fragment(acc[i][j], 0.0f);

	for (int k0 = 0; k0 < n; k0 += BK) {
		for (int i = threadIdx.x; i < BM * BK; i += blockDim.x) {
			int r = i / BK, k = i % BK;
			as[r][k] = __float2half(a[(size_t)(row0 + r) * n + k0 + k]);
		}
		for (int i = threadIdx.x; i < BK * BN; i += blockDim.x) {
			int k = i / BN, col = i % BN;
			bs[k][col] = __float2half(b[(size_t)(k0 + k) * n + col0 + col]);
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < BK; kk += 16) {
			wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa[2];
			wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb[2];

#pragma unroll
			for (int i = 0; i < 2; i++)
				wmma::load_matrix_sync(fa[i], &as[wr * 32 + i * 16][kk], BK + PAD);
#pragma unroll
			for (int j = 0; j < 2; j++)
				wmma::load_matrix_sync(fb[j], &bs[kk][wc * 32 + j * 16], BN + PAD);
#pragma unroll
			for (int i = 0; i < 2; i++)
#pragma unroll
				for (int j = 0; j < 2; j++)
					wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
		}
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < 2; i++)
#pragma unroll
		for (int j = 0; j < 2; j++)
			wmma::store_matrix_sync(&cs[wr * 32 + i * 16][wc * 32 + j * 16], acc[i][j], BN + 4,
			                        wmma::mem_row_major);
	__syncthreads();
	for (int i = threadIdx.x; i < BM * BN; i += blockDim.x) {
		int r = i / BN, col = i % BN;
		c[(size_t)(row0 + r) * n + col0 + col] = cs[r][col];
	}
}
