/*
 * nvcc_compat.h: what a translation unit sees under nvcc and would not see
 * under clang's CUDA wrapper headers.  nvcc-lite's front end includes it
 * right after __clang_cuda_runtime_wrapper.h, when compiling against a
 * CUDA installation.  Each part answers one difference, found on real
 * sources; nothing here changes the meaning of code clang already accepts.
 */
#ifndef NVCC_LITE_COMPAT_H
#define NVCC_LITE_COMPAT_H

/* nvcc's crt/common_functions.h includes these for every .cu file. */
#include <assert.h>
#include <stdio.h>
#include <time.h>
#include <cmath>

/*
 * __managed__: clang gives CUDA (not HIP) no managed attribute and drops
 * it, so a __managed__ variable would become a host variable.  It is a
 * device variable that the host also sees: nv-link turns the annotation
 * into the "managed" marking NVPTX prints as .attribute(.managed).
 */
#undef __managed__
#define __managed__ __attribute__((device, annotate("nvvm.managed")))

/*
 * Host twins of the device math that nvcc declares __host__ __device__ and
 * clang's wrapper declares __device__ only: host code calling min(), max()
 * or ::isfinite() compiles under nvcc.  Host functions, never emitted in a
 * device compile; overloads chosen by the target as clang's CUDA allows.
 */
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;

#define NVCC_LITE_MINMAX(R, A, B)                                                             \
	static inline __host__ R min(const A a, const B b) { return (R)a < (R)b ? (R)a : (R)b; } \
	static inline __host__ R max(const A a, const B b) { return (R)a > (R)b ? (R)a : (R)b; }
NVCC_LITE_MINMAX(int, int, int)
NVCC_LITE_MINMAX(unsigned int, unsigned int, unsigned int)
NVCC_LITE_MINMAX(unsigned int, int, unsigned int)
NVCC_LITE_MINMAX(unsigned int, unsigned int, int)
NVCC_LITE_MINMAX(long int, long int, long int)
NVCC_LITE_MINMAX(unsigned long int, unsigned long int, unsigned long int)
NVCC_LITE_MINMAX(unsigned long int, long int, unsigned long int)
NVCC_LITE_MINMAX(unsigned long int, unsigned long int, long int)
NVCC_LITE_MINMAX(long long int, long long int, long long int)
NVCC_LITE_MINMAX(unsigned long long int, unsigned long long int, unsigned long long int)
NVCC_LITE_MINMAX(unsigned long long int, long long int, unsigned long long int)
NVCC_LITE_MINMAX(unsigned long long int, unsigned long long int, long long int)
NVCC_LITE_MINMAX(double, double, double)
NVCC_LITE_MINMAX(double, float, double)
NVCC_LITE_MINMAX(double, double, float)
#undef NVCC_LITE_MINMAX
static inline __host__ float min(const float a, const float b) { return fminf(a, b); }
static inline __host__ float max(const float a, const float b) { return fmaxf(a, b); }

/*
 * The cache-hinted loads and stores of CUDA's sm_32_intrinsics.h that
 * clang's __clang_cuda_intrinsics.h lacks (it has __ldcg, __ldcs, __ldcv
 * and __stwt, and keeps CUDA's header out): __ldca, __ldlu, __stcg,
 * __stcs, __stwb, with CUDA's PTX for every type CUDA gives them.
 */
#define NVCC_LITE_LD1(F, OP, T, TMP, C)                                              \
	static __device__ __forceinline__ T F(const T *p)                               \
	{                                                                                \
		TMP t;                                                                   \
		asm("ld.global." OP " %0, [%1];" : "=" C(t) : "l"(p));                  \
		return (T)t;                                                             \
	}
#define NVCC_LITE_LD2(F, OP, T, TMP, C)                                              \
	static __device__ __forceinline__ T F(const T *p)                               \
	{                                                                                \
		TMP t;                                                                   \
		T r;                                                                     \
		asm("ld.global." OP " {%0,%1}, [%2];" : "=" C(t.x), "=" C(t.y) : "l"(p)); \
		r.x = (decltype(r.x))t.x;                                                \
		r.y = (decltype(r.y))t.y;                                                \
		return r;                                                                \
	}
#define NVCC_LITE_LD4(F, OP, T, TMP, C)                                                  \
	static __device__ __forceinline__ T F(const T *p)                                   \
	{                                                                                    \
		TMP t;                                                                       \
		T r;                                                                         \
		asm("ld.global." OP " {%0,%1,%2,%3}, [%4];"                                   \
		    : "=" C(t.x), "=" C(t.y), "=" C(t.z), "=" C(t.w) : "l"(p));              \
		r.x = (decltype(r.x))t.x;                                                    \
		r.y = (decltype(r.y))t.y;                                                    \
		r.z = (decltype(r.z))t.z;                                                    \
		r.w = (decltype(r.w))t.w;                                                    \
		return r;                                                                    \
	}
#define NVCC_LITE_ST1(F, OP, T, TMP, C)                                              \
	static __device__ __forceinline__ void F(T *p, T v)                             \
	{                                                                                \
		asm("st.global." OP " [%0], %1;" ::"l"(p), C((TMP)v) : "memory");       \
	}
#define NVCC_LITE_ST2(F, OP, T, TMP, C)                                              \
	static __device__ __forceinline__ void F(T *p, T v)                             \
	{                                                                                \
		TMP t;                                                                   \
		t.x = (decltype(t.x))v.x;                                                \
		t.y = (decltype(t.y))v.y;                                                \
		asm("st.global." OP " [%0], {%1,%2};" ::"l"(p), C(t.x), C(t.y) : "memory"); \
	}
#define NVCC_LITE_ST4(F, OP, T, TMP, C)                                              \
	static __device__ __forceinline__ void F(T *p, T v)                             \
	{                                                                                \
		TMP t;                                                                   \
		t.x = (decltype(t.x))v.x;                                                \
		t.y = (decltype(t.y))v.y;                                                \
		t.z = (decltype(t.z))v.z;                                                \
		t.w = (decltype(t.w))v.w;                                                \
		asm("st.global." OP " [%0], {%1,%2,%3,%4};" ::"l"(p), C(t.x), C(t.y),  \
		    C(t.z), C(t.w) : "memory");                                          \
	}
/* X(width, suffix, type, register type, constraint), as sm_32_intrinsics.hpp */
#define NVCC_LITE_TYPES(X, F, H)                                                    \
	X##1(F, H ".s8", char, int, "r") X##1(F, H ".s8", signed char, int, "r")       \
	X##1(F, H ".s16", short, short, "h") X##1(F, H ".s32", int, int, "r")           \
	X##1(F, H ".s64", long long, long long, "l")                                     \
	X##2(F, H ".v2.s8", char2, int2, "r") X##4(F, H ".v4.s8", char4, int4, "r")    \
	X##2(F, H ".v2.s16", short2, short2, "h") X##4(F, H ".v4.s16", short4, short4, "h") \
	X##2(F, H ".v2.s32", int2, int2, "r") X##4(F, H ".v4.s32", int4, int4, "r")     \
	X##2(F, H ".v2.s64", longlong2, longlong2, "l")                                  \
	X##1(F, H ".u8", unsigned char, unsigned int, "r")                               \
	X##1(F, H ".u16", unsigned short, unsigned short, "h")                           \
	X##1(F, H ".u32", unsigned int, unsigned int, "r")                               \
	X##1(F, H ".u64", unsigned long long, unsigned long long, "l")                   \
	X##2(F, H ".v2.u8", uchar2, uint2, "r") X##4(F, H ".v4.u8", uchar4, uint4, "r") \
	X##2(F, H ".v2.u16", ushort2, ushort2, "h") X##4(F, H ".v4.u16", ushort4, ushort4, "h") \
	X##2(F, H ".v2.u32", uint2, uint2, "r") X##4(F, H ".v4.u32", uint4, uint4, "r") \
	X##2(F, H ".v2.u64", ulonglong2, ulonglong2, "l")                                \
	X##1(F, H ".f32", float, float, "f") X##1(F, H ".f64", double, double, "d")     \
	X##2(F, H ".v2.f32", float2, float2, "f") X##4(F, H ".v4.f32", float4, float4, "f") \
	X##2(F, H ".v2.f64", double2, double2, "d")                                      \
	X##1(F, H ".s64", long, long, "l") X##1(F, H ".u64", unsigned long, unsigned long, "l")
NVCC_LITE_TYPES(NVCC_LITE_LD, __ldca, "ca")
NVCC_LITE_TYPES(NVCC_LITE_LD, __ldlu, "lu")
NVCC_LITE_TYPES(NVCC_LITE_ST, __stcg, "cg")
NVCC_LITE_TYPES(NVCC_LITE_ST, __stcs, "cs")
NVCC_LITE_TYPES(NVCC_LITE_ST, __stwb, "wb")
#undef NVCC_LITE_TYPES
#undef NVCC_LITE_LD1
#undef NVCC_LITE_LD2
#undef NVCC_LITE_LD4
#undef NVCC_LITE_ST1
#undef NVCC_LITE_ST2
#undef NVCC_LITE_ST4

/*
 * nan() and nanf() in device code: clang's wrapper declares them (static
 * __device__) and defines them nowhere, so a call stays an undefined
 * function ptxas cannot resolve; nvcc's headers give libdevice's.
 */
static __device__ __forceinline__ double nan(const char *tagp)
{
	return __nv_nan((const signed char *)tagp);
}
static __device__ __forceinline__ float nanf(const char *tagp)
{
	return __nv_nanf((const signed char *)tagp);
}

#endif
