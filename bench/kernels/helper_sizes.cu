// One kernel calling __device__ helpers of very different sizes, so the
// inliner's decisions show in the PTX: a tiny mix helper called ~20 times,
// a medium float helper (~80 instructions) called 4 times, a large integer
// helper (64 fully unrolled hash steps, ~800 instructions) called 4 times,
// and one helper marked __noinline__ that must stay a .func call.
//@ kernel helper_sizes
//@ grid 1024
//@ block 256
//@ tol 1e-4
//@ arg in f32 262144 rand
//@ arg in u32 262144 rand
//@ arg out f32 262144
//@ arg out u32 262144
//@ arg val i32 262144

// tiny: one or two instructions
__device__ float lerp1(float a, float b, float t)
{
	return a + t * (b - a);
}

// medium: a 4x4 affine transform of a point, a clamp and a rational
// smooth step; roughly 80 instructions once inlined
__device__ float medium_eval(float x, float y, float z, float w)
{
	const float m[4][4] = {
		{ 0.50f, -0.25f, 0.125f, 0.75f },
		{ 0.30f, 0.60f, -0.40f, 0.10f },
		{ -0.20f, 0.15f, 0.55f, -0.35f },
		{ 0.05f, 0.45f, 0.25f, 0.65f },
	};
	float v[4] = { x, y, z, w };
	float r[4];
#pragma unroll
	for (int i = 0; i < 4; i++) {
		float s = 0.0f;
#pragma unroll
		for (int j = 0; j < 4; j++)
			s += m[i][j] * v[j];
		r[i] = fminf(fmaxf(s, -2.0f), 2.0f);
	}
	float acc = 0.0f;
#pragma unroll
	for (int i = 0; i < 4; i++) {
		float t = r[i] * r[i];
		float p = t * (t * (t * 0.0083f - 0.1666f) + 1.0f);
		acc += p * (1.0f + 0.5f * fabsf(r[(i + 1) & 3])) - 0.25f * r[(i + 2) & 3] * r[(i + 3) & 3];
	}
	float d = 1.0f + acc * acc;
	return acc / d + lerp1(r[0], r[3], 0.25f);
}

// large: 64 fully unrolled integer polynomial/mixing steps
__device__ unsigned large_hash(unsigned h, unsigned k)
{
#pragma unroll
	for (int i = 0; i < 64; i++) {
		unsigned c = 0x9e3779b9u * (unsigned)(i + 1);
		h ^= h >> 13;
		h = h * 0x5bd1e995u + (k ^ c);
		h += (h << 3) ^ (h >> 7);
		k = k * 0x2545f491u + h;
		h ^= (k >> 17) | (k << 15);
	}
	return h ^ k;
}

// never inlined: a call with a float and an integer argument
__device__ __noinline__ float noinline_mix(float x, unsigned u)
{
	float f = (float)(u & 0xffffu) * (1.0f / 65536.0f);
	float g = (float)(u >> 16) * (1.0f / 65536.0f);
	return lerp1(x, f, g) * 0.5f + f * g;
}

extern "C" __global__ void helper_sizes(const float *__restrict__ xs, const unsigned *__restrict__ seeds,
					float *__restrict__ fout, unsigned *__restrict__ uout, int n)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid >= n)
		return;

	float x = xs[tid];
	float y = xs[(tid + 1) % n];
	unsigned s = seeds[tid];

	// tiny helper, many calls
	float t = x;
	t = lerp1(t, y, 0.125f);
	t = lerp1(t, -y, 0.25f);
	t = lerp1(t, x * y, 0.375f);
	t = lerp1(t, 0.5f, 0.5f);
	float u = lerp1(x, y, t);
	u = lerp1(u, t, 0.625f);
	u = lerp1(u, -x, 0.75f);
	u = lerp1(u, t * u, 0.875f);

	// medium helper, four calls
	float m0 = medium_eval(x, y, t, u);
	float m1 = medium_eval(y, t, u, x);
	float m2 = medium_eval(t, u, x, y);
	float m3 = medium_eval(u, x, y, t);
	float m = lerp1(lerp1(m0, m1, 0.3f), lerp1(m2, m3, 0.6f), 0.5f);

	// large helper, four calls
	unsigned h0 = large_hash(s, 1u);
	unsigned h1 = large_hash(s ^ 0xdeadbeefu, h0);
	unsigned h2 = large_hash(h1, s + 7u);
	unsigned h3 = large_hash(h2 ^ h0, h1);

	// never-inlined helper
	float z = noinline_mix(m, h3) + noinline_mix(t, h2);

	fout[tid] = lerp1(z, m, 0.5f);
	uout[tid] = h0 ^ h1 ^ h2 ^ h3;
}
