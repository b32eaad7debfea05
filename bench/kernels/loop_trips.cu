// Loops of every trip-count kind in one kernel: constant 8 (full unroll),
// constant 100 (partial unroll or none), a runtime trip count, a
// `#pragma unroll 4` runtime loop (remainder handling: 37 is not a multiple
// of 4), a `#pragma unroll 1` loop, and a local float a[32] written and read
// through the induction variable (registers only if fully unrolled).
//@ kernel loop_trips
//@ grid 4096
//@ block 256
//@ tol 1e-4
//@ arg in f32 1048576 rand
//@ arg in f32 256 rand
//@ arg out f32 1048576
//@ arg val i32 37
//@ arg val i32 1048576

extern "C" __global__ void loop_trips(const float *__restrict__ x, const float *__restrict__ coef,
				      float *__restrict__ out, int trips, int n)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid >= n)
		return;

	float v = x[tid];

	// constant trip count 8: Horner polynomial
	float p = 0.0f;
	for (int i = 0; i < 8; i++)
		p = p * v + coef[i];

	// constant trip count 100: damped recurrence
	float r = v;
	for (int i = 0; i < 100; i++)
		r = r * 0.5f + coef[i & 127] * 0.25f - r * r * 0.125f;

	// runtime trip count
	float s = 0.0f;
	for (int i = 0; i < trips; i++)
		s = s * 0.75f + coef[(i + tid) & 255];

	// runtime trip count, unrolled by 4
	float q = 0.0f;
#pragma unroll 4
	for (int i = 0; i < trips; i++)
		q = q * 0.5f + x[(tid + 97 * i) % n] * coef[i & 255];

	// kept as a loop
	float w = v;
#pragma unroll 1
	for (int i = 0; i < 16; i++)
		w = w * 0.875f + coef[128 + i] * w * 0.0625f + 0.01f;

	// local array indexed by the induction variable
	float a[32];
#pragma unroll
	for (int i = 0; i < 32; i++)
		a[i] = v * coef[i] + (float)i * 0.03125f;
	float b = 0.0f;
#pragma unroll
	for (int i = 1; i < 32; i++)
		b += (a[i] - a[i - 1]) * a[31 - i];

	out[tid] = p + r + s + q + w + b * 0.1f;
}
