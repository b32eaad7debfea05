// The rematerialization seed: eight loads, five fused multiply-adds whose
// results are reused across stores (r0 twice), three strided stores.  Tests
// whether cheap values are recomputed or kept live, and FMA formation.
//@ kernel remat_test
//@ grid 4096
//@ block 256
//@ arg in f32 8388608 rand
//@ arg out f32 3145728
//@ arg val i32 1048576

extern "C" __global__ void remat_test(const float* __restrict__ in, float* __restrict__ out, int n) { int tid = blockIdx.x * blockDim.x + threadIdx.x; if (tid >= n) return; float a = in[tid]; float b = in[tid + n]; float c = in[tid + 2*n]; float d = in[tid + 3*n]; float e = in[tid + 4*n]; float f = in[tid + 5*n]; float g = in[tid + 6*n]; float h = in[tid + 7*n]; float r0 = a * b + c; float r1 = d * e + f; float r2 = g * h + a; float r3 = b * c + d; float r4 = e * f + g; out[tid] = r0 + r1; out[tid + n] = r2 + r3; out[tid + 2*n] = r4 + r0; }
