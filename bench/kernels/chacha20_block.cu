// ChaCha20 block function per thread: 20 rounds (10 double rounds) of
// quarter-rounds written as a __device__ helper on references, rotates as
// shift pairs; key from a shared buffer, a per-thread nonce, and a runtime
// base counter.  Integer add/xor/rotate throughput, 16 state words live.
//@ kernel chacha20_block
//@ grid 2048
//@ block 256
//@ arg in u32 8 rand
//@ arg in u32 1572864 rand
//@ arg out u32 8388608
//@ arg val u32 7
//@ arg val i32 524288

static __device__ __forceinline__ unsigned rotl(unsigned x, int r)
{
	return (x << r) | (x >> (32 - r));
}

__device__ void quarter_round(unsigned &a, unsigned &b, unsigned &c, unsigned &d)
{
	a += b; d ^= a; d = rotl(d, 16);
	c += d; b ^= c; b = rotl(b, 12);
	a += b; d ^= a; d = rotl(d, 8);
	c += d; b ^= c; b = rotl(b, 7);
}

extern "C" __global__ void chacha20_block(const unsigned *__restrict__ key, const unsigned *__restrict__ nonce,
					  unsigned *__restrict__ out, unsigned counter, int n)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid >= n)
		return;

	unsigned s[16];
	s[0] = 0x61707865u;
	s[1] = 0x3320646eu;
	s[2] = 0x79622d32u;
	s[3] = 0x6b206574u;
#pragma unroll
	for (int i = 0; i < 8; i++)
		s[4 + i] = key[i];
	s[12] = counter + (unsigned)tid;
	s[13] = nonce[3 * tid + 0];
	s[14] = nonce[3 * tid + 1];
	s[15] = nonce[3 * tid + 2];

	unsigned x[16];
#pragma unroll
	for (int i = 0; i < 16; i++)
		x[i] = s[i];

	for (int round = 0; round < 10; round++) {
		// column round
		quarter_round(x[0], x[4], x[8], x[12]);
		quarter_round(x[1], x[5], x[9], x[13]);
		quarter_round(x[2], x[6], x[10], x[14]);
		quarter_round(x[3], x[7], x[11], x[15]);
		// diagonal round
		quarter_round(x[0], x[5], x[10], x[15]);
		quarter_round(x[1], x[6], x[11], x[12]);
		quarter_round(x[2], x[7], x[8], x[13]);
		quarter_round(x[3], x[4], x[9], x[14]);
	}

#pragma unroll
	for (int i = 0; i < 16; i++)
		out[i * n + tid] = x[i] + s[i];
}
