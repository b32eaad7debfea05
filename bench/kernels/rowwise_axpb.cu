// Per-thread rows: each thread applies a*x+b to its own row of n floats.
// The loop that nv-vectorize turns into ld/st.v4 behind a run-time
// alignment test; nvcc and clang leave it scalar (ANCHORS.md).
//@ kernel rowwise_axpb
//@ grid 64
//@ block 128
//@ arg out f32 1048576
//@ arg in f32 1048576
//@ arg val i32 128

extern "C" __global__ void rowwise_axpb(float *__restrict__ out, const float *__restrict__ in, int n)
{
	long r = blockIdx.x * blockDim.x + threadIdx.x;
	const float *x = in + r * n;
	float *y = out + r * n;

	for (int i = 0; i < n; i++)
		y[i] = x[i] * 1.5f + 0.25f;
}
