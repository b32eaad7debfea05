// Register pressure: 40 floats loaded from 40 strided places and all live
// at once; a forward pass folds them in one order, a backward pass in the
// reverse order, so each value's last use is late.  The non-associative
// float chain cannot be reassociated to shorten lifetimes: ~45 live
// registers, which -maxrregcount=32 would turn into spills.
//@ kernel reg_pressure40
//@ grid 1024
//@ block 256
//@ tol 1e-4
//@ arg in f32 10485760 rand
//@ arg out f32 262144
//@ arg val i32 262144

#define NV 40

extern "C" __global__ void reg_pressure40(const float *__restrict__ in, float *__restrict__ out, int n)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid >= n)
		return;

	float v[NV];
#pragma unroll
	for (int k = 0; k < NV; k++)
		v[k] = in[(size_t)k * n + ((tid + 131 * k) % n)];

	// forward pass: every v[k] is read once here...
	float a = 0.0f;
#pragma unroll
	for (int k = 0; k < NV; k++)
		a = (a + v[k]) * 0.5f + a * v[k] * 0.125f;

	// ...and again here, in reverse, after the whole forward pass
	float b = 1.0f;
#pragma unroll
	for (int k = NV - 1; k >= 0; k--)
		b = b * v[k] - (a - v[k]) * 0.25f;

	out[tid] = a + b;
}
