// All-pairs n-body accelerations for 16384 bodies: float4 positions with the
// mass in .w, Plummer softening, rsqrtf, and the classic shared-memory tiling
// (each block stages a tile of bodies, every thread sweeps it, unrolled).
//@ kernel nbody
//@ grid 128
//@ block 128
//@ tol 1e-3
//@ arg out f32 65536
//@ arg in f32 65536 pos
//@ arg val i32 16384
//@ arg val f32 0.01

#define TILE 128

extern "C" __global__ void __launch_bounds__(TILE)
nbody(float4 *__restrict__ accel, const float4 *__restrict__ pos, int n, float eps2)
{
	__shared__ float4 tile[TILE];

	int i = blockIdx.x * TILE + threadIdx.x;
	float4 pi = {0.0f, 0.0f, 0.0f, 0.0f};
	float ax = 0.0f, ay = 0.0f, az = 0.0f;

	if (i < n)
		pi = pos[i];

	for (int base = 0; base < n; base += TILE) {
		int j = base + threadIdx.x;
		float4 pj = {0.0f, 0.0f, 0.0f, 0.0f};

		if (j < n)
			pj = pos[j];
		tile[threadIdx.x] = pj;
		__syncthreads();

#pragma unroll 8
		for (int k = 0; k < TILE; k++) {
			float4 q = tile[k];
			float dx = q.x - pi.x;
			float dy = q.y - pi.y;
			float dz = q.z - pi.z;
			float r2 = dx * dx + dy * dy + dz * dz + eps2;
			float inv = rsqrtf(r2);
			float s = q.w * inv * inv * inv;

			ax += dx * s;
			ay += dy * s;
			az += dz * s;
		}
		__syncthreads();
	}

	if (i < n) {
		float4 a;
		a.x = ax;
		a.y = ay;
		a.z = az;
		a.w = 0.0f;
		accel[i] = a;
	}
}
