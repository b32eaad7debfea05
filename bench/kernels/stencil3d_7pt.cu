// 3-D 7-point stencil on a 256^3 grid: a 2-D grid of threads, each marching
// in z with the previous, current and next values of its column kept in
// registers (only the four in-plane neighbours are loaded per step).  The
// outer faces of the volume are copied through.
//@ kernel stencil3d_7pt
//@ grid 8 64
//@ block 32 4
//@ arg out f32 16777216
//@ arg in f32 16777216 rand
//@ arg val i32 256
//@ arg val i32 256
//@ arg val i32 256
//@ arg val f32 0.4
//@ arg val f32 0.1

extern "C" __global__ void __launch_bounds__(128)
stencil3d_7pt(float *__restrict__ out, const float *__restrict__ in,
	      int nx, int ny, int nz, float c0, float c1)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x >= nx || y >= ny || nz < 2)
		return;

	size_t plane = (size_t)nx * ny;
	size_t idx = (size_t)y * nx + x;
	bool edge = x == 0 || y == 0 || x == nx - 1 || y == ny - 1;

	float prev = in[idx];
	float cur = in[idx + plane];

	out[idx] = prev;
	idx += plane;

	for (int z = 1; z < nz - 1; z++) {
		float next = in[idx + plane];
		float r;

		if (edge) {
			r = cur;
		} else {
			float nb = in[idx - 1] + in[idx + 1] + in[idx - nx] + in[idx + nx];
			r = c0 * cur + c1 * (prev + next + nb);
		}
		out[idx] = r;

		prev = cur;
		cur = next;
		idx += plane;
	}
	out[idx] = cur;
}
