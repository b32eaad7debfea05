// SHA-256 compression of one 64-byte block per thread: 64 fully unrolled
// rounds with a rolling 16-word message schedule, rotates written as shift
// pairs (should become shf.r / prmt), round constants from a static
// __constant__ table that unrolling turns into immediates.  A large,
// integer-only straight-line body.
//@ kernel sha256_rounds
//@ grid 2048
//@ block 256
//@ arg in u32 8388608 rand
//@ arg out u32 4194304
//@ arg val i32 524288

__constant__ unsigned sha256_k[64] = {
	0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
	0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
	0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
	0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
	0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
	0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
	0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
	0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};

static __device__ __forceinline__ unsigned rotr(unsigned x, int r)
{
	return (x >> r) | (x << (32 - r));
}

static __device__ __forceinline__ unsigned big_sigma0(unsigned x) { return rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22); }
static __device__ __forceinline__ unsigned big_sigma1(unsigned x) { return rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25); }
static __device__ __forceinline__ unsigned small_sigma0(unsigned x) { return rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3); }
static __device__ __forceinline__ unsigned small_sigma1(unsigned x) { return rotr(x, 17) ^ rotr(x, 19) ^ (x >> 10); }
static __device__ __forceinline__ unsigned ch(unsigned x, unsigned y, unsigned z) { return (x & y) ^ (~x & z); }
static __device__ __forceinline__ unsigned maj(unsigned x, unsigned y, unsigned z) { return (x & y) ^ (x & z) ^ (y & z); }

extern "C" __global__ void __launch_bounds__(256)
sha256_rounds(const unsigned *__restrict__ msg, unsigned *__restrict__ digest, int n)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid >= n)
		return;

	unsigned w[16];
#pragma unroll
	for (int i = 0; i < 16; i++)
		w[i] = msg[i * n + tid];

	const unsigned iv[8] = {
		0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
		0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u,
	};
	unsigned a = iv[0], b = iv[1], c = iv[2], d = iv[3];
	unsigned e = iv[4], f = iv[5], g = iv[6], h = iv[7];

#pragma unroll
	for (int r = 0; r < 64; r++) {
		unsigned wr;
		if (r < 16) {
			wr = w[r];
		} else {
			wr = small_sigma1(w[(r - 2) & 15]) + w[(r - 7) & 15] +
			     small_sigma0(w[(r - 15) & 15]) + w[r & 15];
			w[r & 15] = wr;
		}
		unsigned t1 = h + big_sigma1(e) + ch(e, f, g) + sha256_k[r] + wr;
		unsigned t2 = big_sigma0(a) + maj(a, b, c);
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}

	digest[0 * n + tid] = iv[0] + a;
	digest[1 * n + tid] = iv[1] + b;
	digest[2 * n + tid] = iv[2] + c;
	digest[3 * n + tid] = iv[3] + d;
	digest[4 * n + tid] = iv[4] + e;
	digest[5 * n + tid] = iv[5] + f;
	digest[6 * n + tid] = iv[6] + g;
	digest[7 * n + tid] = iv[7] + h;
}
