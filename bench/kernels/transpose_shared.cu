// Matrix transpose (4096x4096 floats) through a 32x33 shared tile: the
// extra column avoids bank conflicts on the column-wise read; 32x8 threads
// move a 32x32 tile, four rows each, with coalesced loads and stores.
//@ kernel transpose_shared
//@ grid 128 128
//@ block 32 8
//@ arg out f32 16777216
//@ arg in f32 16777216 rand
//@ arg val i32 4096
//@ arg val i32 4096

#define TILE 32
#define ROWS 8

extern "C" __global__ void __launch_bounds__(TILE * ROWS)
transpose_shared(float *__restrict__ out, const float *__restrict__ in,
		 int width, int height)
{
	__shared__ float tile[TILE][TILE + 1];

	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;

#pragma unroll
	for (int j = 0; j < TILE; j += ROWS)
		if (x < width && y + j < height)
			tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * width + x];
	__syncthreads();

	/* out is width x height: swap the block indices, keep threadIdx.x fastest */
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;

#pragma unroll
	for (int j = 0; j < TILE; j += ROWS)
		if (x < height && y + j < width)
			out[(size_t)(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
