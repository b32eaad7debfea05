// Each thread sorts 16 floats held in a local array with a fully unrolled
// bitonic network (80 min/max compare-exchanges): the array must be
// promoted to registers, and the float4 loads and stores kept.
//@ kernel sortnet_regs16
//@ grid 2048
//@ block 256
//@ arg in f32 8388608 rand
//@ arg out f32 8388608
//@ arg val i32 524288

extern "C" __global__ void sortnet_regs16(const float4 *__restrict__ in, float4 *__restrict__ out, int n)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid >= n)
		return;

	float v[16];
#pragma unroll
	for (int q = 0; q < 4; q++) {
		float4 x = in[tid * 4 + q];
		v[4 * q + 0] = x.x;
		v[4 * q + 1] = x.y;
		v[4 * q + 2] = x.z;
		v[4 * q + 3] = x.w;
	}

#pragma unroll
	for (int k = 2; k <= 16; k <<= 1) {
#pragma unroll
		for (int j = k >> 1; j > 0; j >>= 1) {
#pragma unroll
			for (int i = 0; i < 16; i++) {
				int l = i ^ j;
				if (l > i) {
					float a = v[i], b = v[l];
					float lo = fminf(a, b), hi = fmaxf(a, b);
					bool up = (i & k) == 0;
					v[i] = up ? lo : hi;
					v[l] = up ? hi : lo;
				}
			}
		}
	}

#pragma unroll
	for (int q = 0; q < 4; q++) {
		float4 y;
		y.x = v[4 * q + 0];
		y.y = v[4 * q + 1];
		y.z = v[4 * q + 2];
		y.w = v[4 * q + 3];
		out[tid * 4 + q] = y;
	}
}
