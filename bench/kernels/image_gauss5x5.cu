// 5x5 Gaussian blur (binomial 1-4-6-4-1 weights, statically initialised
// __constant__) of a 4096x4096 float image: each 32x16 block loads a 36x20
// shared tile with a 2-pixel halo (clamp-to-edge), syncs, and every thread
// applies the fully unrolled 25-tap filter out of shared memory.
//@ kernel image_gauss5x5
//@ grid 128 256
//@ block 32 16
//@ arg out f32 16777216
//@ arg in f32 16777216 rand
//@ arg val i32 4096
//@ arg val i32 4096

#define BX 32
#define BY 16
#define R 2
#define TW (BX + 2 * R)
#define TH (BY + 2 * R)

__constant__ float c_gauss[5][5] = {
	{ 1.0f / 256,  4.0f / 256,  6.0f / 256,  4.0f / 256, 1.0f / 256 },
	{ 4.0f / 256, 16.0f / 256, 24.0f / 256, 16.0f / 256, 4.0f / 256 },
	{ 6.0f / 256, 24.0f / 256, 36.0f / 256, 24.0f / 256, 6.0f / 256 },
	{ 4.0f / 256, 16.0f / 256, 24.0f / 256, 16.0f / 256, 4.0f / 256 },
	{ 1.0f / 256,  4.0f / 256,  6.0f / 256,  4.0f / 256, 1.0f / 256 },
};

extern "C" __global__ void __launch_bounds__(BX * BY)
image_gauss5x5(float *__restrict__ out, const float *__restrict__ in, int width, int height)
{
	__shared__ float tile[TH][TW + 1];

	int x0 = blockIdx.x * BX - R;
	int y0 = blockIdx.y * BY - R;
	int tid = threadIdx.y * BX + threadIdx.x;

	for (int e = tid; e < TW * TH; e += BX * BY) {
		int ty = e / TW, tx = e % TW;
		int gx = min(max(x0 + tx, 0), width - 1);
		int gy = min(max(y0 + ty, 0), height - 1);
		tile[ty][tx] = in[gy * width + gx];
	}
	__syncthreads();

	int x = blockIdx.x * BX + threadIdx.x;
	int y = blockIdx.y * BY + threadIdx.y;

	if (x >= width || y >= height)
		return;

	float acc = 0.0f;
#pragma unroll
	for (int dy = 0; dy < 5; dy++)
#pragma unroll
		for (int dx = 0; dx < 5; dx++)
			acc += c_gauss[dy][dx] * tile[threadIdx.y + dy][threadIdx.x + dx];
	out[y * width + x] = acc;
}
