// Lennard-Jones forces and per-atom energy over a fixed-size neighbour list
// (32 neighbours per atom, stored neighbour-major so the index loads are
// coalesced): gathered float4 positions, a cutoff test, r^-6/r^-12 terms
// from one division, and three scalar force accumulators.  r^2 is clamped
// from below, as production codes do, so no pair can blow up.
//@ kernel md_lj
//@ grid 1024
//@ block 256
//@ tol 1e-3
//@ arg out f32 1048576
//@ arg in f32 1048576 rand
//@ arg in i32 8388608 mod:262144
//@ arg val i32 262144
//@ arg val i32 32
//@ arg val f32 1.0
//@ arg val f32 0.16
//@ arg val f32 1.0

extern "C" __global__ void __launch_bounds__(256)
md_lj(float4 *__restrict__ force, const float4 *__restrict__ pos,
      const int *__restrict__ neigh, int n, int maxn,
      float rc2, float sig2, float eps)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;

	float4 pi = pos[i];
	float fx = 0.0f, fy = 0.0f, fz = 0.0f, energy = 0.0f;
	float rmin2 = 0.64f * sig2;

#pragma unroll 4
	for (int k = 0; k < maxn; k++) {
		int j = neigh[k * n + i];

		if (j == i)
			continue;

		float4 pj = pos[j];
		float dx = pi.x - pj.x;
		float dy = pi.y - pj.y;
		float dz = pi.z - pj.z;
		float r2 = dx * dx + dy * dy + dz * dz;

		if (r2 < rc2) {
			r2 = fmaxf(r2, rmin2);
			float inv2 = 1.0f / r2;
			float sr2 = sig2 * inv2;
			float sr6 = sr2 * sr2 * sr2;
			float sr12 = sr6 * sr6;
			float fscal = 24.0f * eps * (2.0f * sr12 - sr6) * inv2;

			fx += dx * fscal;
			fy += dy * fscal;
			fz += dz * fscal;
			energy += 4.0f * eps * (sr12 - sr6);
		}
	}

	float4 f;
	f.x = fx;
	f.y = fy;
	f.z = fz;
	f.w = 0.5f * energy;
	force[i] = f;
}
