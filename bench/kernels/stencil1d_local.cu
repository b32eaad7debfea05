// 1-D radius-4 (9-point) stencil: each thread computes 4 consecutive outputs,
// keeping a 9-element window in a local array that is shifted by one and
// refilled per output; weights come from a statically initialised
// __constant__ array.  Everything is #pragma unroll, so the window must end
// up in registers (no local memory).  Reads are clamped to the array's ends.
//@ kernel stencil1d_local
//@ grid 16384
//@ block 256
//@ arg out f32 16777216
//@ arg in f32 16777216 rand
//@ arg val i32 16777216

#define RADIUS 4
#define WIDTH (2 * RADIUS + 1)
#define OUTS 4

__constant__ float c_weights[WIDTH] = {
	0.01f, 0.05f, 0.12f, 0.20f, 0.24f, 0.20f, 0.12f, 0.05f, 0.01f
};

static __device__ __forceinline__ int clamp_index(int i, int n)
{
	return min(max(i, 0), n - 1);
}

extern "C" __global__ void __launch_bounds__(256)
stencil1d_local(float *__restrict__ out, const float *__restrict__ in, int n)
{
	int first = (blockIdx.x * blockDim.x + threadIdx.x) * OUTS;

	if (first >= n)
		return;

	float w[WIDTH];

#pragma unroll
	for (int j = 0; j < WIDTH; j++)
		w[j] = in[clamp_index(first - RADIUS + j, n)];

#pragma unroll
	for (int k = 0; k < OUTS; k++) {
		int i = first + k;

		if (i < n) {
			float acc = c_weights[0] * w[0];
#pragma unroll
			for (int j = 1; j < WIDTH; j++)
				acc += c_weights[j] * w[j];
			out[i] = acc;
		}

#pragma unroll
		for (int j = 0; j < WIDTH - 1; j++)
			w[j] = w[j + 1];
		w[WIDTH - 1] = in[clamp_index(i + RADIUS + 1, n)];
	}
}
