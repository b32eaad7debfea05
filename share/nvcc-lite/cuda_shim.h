/*
 * cuda_shim.h: the part of the CUDA headers that simple kernels need, for
 * machines without a CUDA installation.  nvcc-lite force-includes it (with
 * clang's -nocudainc) when no CUDA_PATH or /usr/local/cuda is found.
 *
 * Covered: the execution-space and memory-space qualifiers, threadIdx and
 * friends, __syncthreads and the common warp/fence intrinsics, atomicAdd on
 * int/unsigned/float, and the float math that LLVM lowers by itself.  Not
 * covered: libdevice math (erff, sinf with full precision, ...), textures,
 * cooperative groups: install CUDA for those.
 */
#ifndef NVCC_LITE_CUDA_SHIM_H
#define NVCC_LITE_CUDA_SHIM_H

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict

#include <__clang_cuda_builtin_vars.h>

typedef __SIZE_TYPE__ size_t;

struct __attribute__((aligned(8))) float2 { float x, y; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((aligned(8))) int2 { int x, y; };
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
struct __attribute__((aligned(16))) double2 { double x, y; };
typedef struct float2 float2;
typedef struct float4 float4;
typedef struct int2 int2;
typedef struct int4 int4;
typedef struct double2 double2;

static __device__ __forceinline__ void __syncwarp(unsigned m = 0xffffffffu) { __nvvm_bar_warp_sync(m); }
static __device__ __forceinline__ void __threadfence(void) { __nvvm_membar_gl(); }
static __device__ __forceinline__ void __threadfence_block(void) { __nvvm_membar_cta(); }

static __device__ __forceinline__ float __shfl_down_sync(unsigned m, float v, unsigned d, int w = 32)
{ return __nvvm_shfl_sync_down_f32(m, v, d, ((32 - w) << 8) | 0x1f); }
static __device__ __forceinline__ int __shfl_down_sync(unsigned m, int v, unsigned d, int w = 32)
{ return __nvvm_shfl_sync_down_i32(m, v, d, ((32 - w) << 8) | 0x1f); }
static __device__ __forceinline__ float __shfl_xor_sync(unsigned m, float v, int l, int w = 32)
{ return __nvvm_shfl_sync_bfly_f32(m, v, l, ((32 - w) << 8) | 0x1f); }
static __device__ __forceinline__ int __shfl_xor_sync(unsigned m, int v, int l, int w = 32)
{ return __nvvm_shfl_sync_bfly_i32(m, v, l, ((32 - w) << 8) | 0x1f); }
static __device__ __forceinline__ float __shfl_sync(unsigned m, float v, int l, int w = 32)
{ return __nvvm_shfl_sync_idx_f32(m, v, l, ((32 - w) << 8) | 0x1f); }
static __device__ __forceinline__ int __shfl_sync(unsigned m, int v, int l, int w = 32)
{ return __nvvm_shfl_sync_idx_i32(m, v, l, ((32 - w) << 8) | 0x1f); }

static __device__ __forceinline__ int atomicAdd(int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
static __device__ __forceinline__ unsigned atomicAdd(unsigned *p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
static __device__ __forceinline__ float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
static __device__ __forceinline__ int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
static __device__ __forceinline__ int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }

static __device__ __forceinline__ float __ldg(const float *p) { return __nvvm_ldg_f(p); }
static __device__ __forceinline__ int __ldg(const int *p) { return __nvvm_ldg_i(p); }

static __device__ __forceinline__ float sqrtf(float x) { return __builtin_sqrtf(x); }
static __device__ __forceinline__ float fabsf(float x) { return __builtin_fabsf(x); }
static __device__ __forceinline__ float fminf(float a, float b) { return __builtin_fminf(a, b); }
static __device__ __forceinline__ float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
static __device__ __forceinline__ float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
static __device__ __forceinline__ float floorf(float x) { return __builtin_floorf(x); }
static __device__ __forceinline__ float ceilf(float x) { return __builtin_ceilf(x); }
static __device__ __forceinline__ float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
static __device__ __forceinline__ float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
static __device__ __forceinline__ float expf(float x) { return __expf(x); }
static __device__ __forceinline__ float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
static __device__ __forceinline__ double sqrt(double x) { return __builtin_sqrt(x); }
static __device__ __forceinline__ double fabs(double x) { return __builtin_fabs(x); }
static __device__ __forceinline__ double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
static __device__ __forceinline__ int min(int a, int b) { return a < b ? a : b; }
static __device__ __forceinline__ int max(int a, int b) { return a > b ? a : b; }

#endif
