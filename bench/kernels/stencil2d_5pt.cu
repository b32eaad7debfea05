// 2-D Jacobi 5-point stencil on a 4096x4096 grid, one thread per point on a
// 2-D grid of 32x8 blocks: neighbour loads at +-1 and +-nx, boundary points
// copied through, everything guarded against the grid's edge.
//@ kernel stencil2d_5pt
//@ grid 128 512
//@ block 32 8
//@ arg out f32 16777216
//@ arg in f32 16777216 rand
//@ arg val i32 4096
//@ arg val i32 4096
//@ arg val f32 0.2

extern "C" __global__ void __launch_bounds__(256)
stencil2d_5pt(float *__restrict__ out, const float *__restrict__ in, int nx, int ny, float w)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x >= nx || y >= ny)
		return;

	int i = y * nx + x;

	if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
		out[i] = in[i];
		return;
	}

	float c = in[i];
	float n = in[i - nx];
	float s = in[i + nx];
	float e = in[i + 1];
	float o = in[i - 1];
	out[i] = w * (c + n + s + e + o);
}
