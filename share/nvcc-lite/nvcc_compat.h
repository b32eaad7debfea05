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
 * nvcc defines __CUDACC__ as 1 (clang's wrapper as nothing, so that
 * "#if __CUDACC__" fails); crt/common_functions.h, which clang's wrapper
 * keeps out, defines __CUDACC_VER__ as a message.
 */
#undef __CUDACC__
#define __CUDACC__ 1
/* clang's wrapper reads CUDA's device function bodies in the host pass too,
 * with __CUDA_ARCH__ set for the while; nvcc's host pass has none of these */
#if !defined(__CUDA_ARCH__)
#undef __CUDA_AND_AT_LEAST_SM_70__
#undef __CUDA_AND_AT_LEAST_SM_75__
#undef __CUDA_AND_AT_LEAST_SM_90__
#endif
#if defined(__CUDACC_VER_MAJOR__) && !defined(__CUDACC_VER__)
#define __CUDACC_VER__ "__CUDACC_VER__ is no longer supported.  Use __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, and __CUDACC_VER_BUILD__ instead."
#endif

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
		r.x = (__decltype(r.x))t.x;                                                \
		r.y = (__decltype(r.y))t.y;                                                \
		return r;                                                                \
	}
#define NVCC_LITE_LD4(F, OP, T, TMP, C)                                                  \
	static __device__ __forceinline__ T F(const T *p)                                   \
	{                                                                                    \
		TMP t;                                                                       \
		T r;                                                                         \
		asm("ld.global." OP " {%0,%1,%2,%3}, [%4];"                                   \
		    : "=" C(t.x), "=" C(t.y), "=" C(t.z), "=" C(t.w) : "l"(p));              \
		r.x = (__decltype(r.x))t.x;                                                    \
		r.y = (__decltype(r.y))t.y;                                                    \
		r.z = (__decltype(r.z))t.z;                                                    \
		r.w = (__decltype(r.w))t.w;                                                    \
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
		t.x = (__decltype(t.x))v.x;                                                \
		t.y = (__decltype(t.y))v.y;                                                \
		asm("st.global." OP " [%0], {%1,%2};" ::"l"(p), C(t.x), C(t.y) : "memory"); \
	}
#define NVCC_LITE_ST4(F, OP, T, TMP, C)                                              \
	static __device__ __forceinline__ void F(T *p, T v)                             \
	{                                                                                \
		TMP t;                                                                   \
		t.x = (__decltype(t.x))v.x;                                                \
		t.y = (__decltype(t.y))v.y;                                                \
		t.z = (__decltype(t.z))v.z;                                                \
		t.w = (__decltype(t.w))v.w;                                                \
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
#if __cplusplus < 201103L
/* clang has its __ldcg, __ldcs, __ldcv and __stwt from C++11 on; nvcc in C++03 too */
NVCC_LITE_TYPES(NVCC_LITE_LD, __ldcg, "cg")
NVCC_LITE_TYPES(NVCC_LITE_LD, __ldcs, "cs")
NVCC_LITE_TYPES(NVCC_LITE_LD, __ldcv, "cv")
NVCC_LITE_TYPES(NVCC_LITE_ST, __stwt, "wt")
#endif
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


/*
 * nvcc's __nv_atomic_* builtins (CUDA 12.8 on: __CUDACC_DEVICE_ATOMIC_BUILTINS__
 * says so), with the orders and scopes of CUDA's crt/device_functions.h,
 * which clang's wrapper keeps out.  cicc writes each as one PTX instruction
 * on a generic address with the order and scope given (consume as acquire, a
 * thread's scope as the CTA's, a cluster's before sm_90 as the GPU's);
 * seq_cst as fence.sc and then the acquire form (a store: the relaxed one);
 * a compare-exchange with the stronger of its two orders (by their values:
 * release and acquire give release); a fence as fence.acq_rel for acq_rel,
 * fence.sc for any other order; fetch_sub as an add of the negated value.
 * This writes the same instructions as inline assembly (LLVM 22's NVPTX
 * drops an atomicrmw's order and scope).  The order and scope are template
 * arguments, so they must be constants, as nvcc requires; a type or order
 * nvcc refuses is a static_assert with nvcc's message.
 */
#if defined(__CUDACC_DEVICE_ATOMIC_BUILTINS__) && __cplusplus >= 201103L
/* crt/device_functions.h's (clang's wrapper defines its guard to keep it out) */
enum {
	__NV_ATOMIC_RELAXED,
	__NV_ATOMIC_CONSUME,
	__NV_ATOMIC_ACQUIRE,
	__NV_ATOMIC_RELEASE,
	__NV_ATOMIC_ACQ_REL,
	__NV_ATOMIC_SEQ_CST
};
enum {
	__NV_THREAD_SCOPE_THREAD,
	__NV_THREAD_SCOPE_BLOCK,
	__NV_THREAD_SCOPE_CLUSTER,
	__NV_THREAD_SCOPE_DEVICE,
	__NV_THREAD_SCOPE_SYSTEM
};
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc++17-extensions"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define __NVLITE_CLUSTER ".cluster"
#else
#define __NVLITE_CLUSTER ".gpu"
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define __NVLITE_B128_XCHG 0
#else
#define __NVLITE_B128_XCHG 1
#endif
/* X(SEM, SCOPE, ...) for scope S; __NVLITE_SEMS for sem M too (0 relaxed,
 * 1 acquire, 2 release, 3 acq_rel) */
#define __NVLITE_SCOPES(S, X, SEM, ...)                                    \
	if constexpr ((S) == __NV_THREAD_SCOPE_SYSTEM) {                   \
		X(SEM, ".sys", __VA_ARGS__)                                \
	} else if constexpr ((S) == __NV_THREAD_SCOPE_DEVICE) {            \
		X(SEM, ".gpu", __VA_ARGS__)                                \
	} else if constexpr ((S) == __NV_THREAD_SCOPE_CLUSTER) {           \
		X(SEM, __NVLITE_CLUSTER, __VA_ARGS__)                      \
	} else {                                                           \
		X(SEM, ".cta", __VA_ARGS__)                                \
	}
#define __NVLITE_SEMS(M, S, X, ...)                                        \
	if constexpr ((M) == 0) {                                          \
		__NVLITE_SCOPES(S, X, ".relaxed", __VA_ARGS__)             \
	} else if constexpr ((M) == 1) {                                   \
		__NVLITE_SCOPES(S, X, ".acquire", __VA_ARGS__)             \
	} else if constexpr ((M) == 2) {                                   \
		__NVLITE_SCOPES(S, X, ".release", __VA_ARGS__)             \
	} else {                                                           \
		__NVLITE_SCOPES(S, X, ".acq_rel", __VA_ARGS__)             \
	}
#define __NVLITE_FENCE(SEM, SCOPE, KIND) asm volatile("fence" KIND SCOPE ";" ::: "memory");
#define __NVLITE_LD(SEM, SCOPE, TY, C) \
	asm volatile("ld" SEM SCOPE "." TY " %0, [%1];" : "=" C(r) : "l"(p) : "memory");
#define __NVLITE_ST(SEM, SCOPE, TY, C) \
	asm volatile("st" SEM SCOPE "." TY " [%0], %1;" ::"l"(p), C(x) : "memory");
#define __NVLITE_RMW(SEM, SCOPE, OP, TY, C) \
	asm volatile("atom" OP SEM SCOPE "." TY " %0,[%1],%2;" : "=" C(r) : "l"(p), C(x) : "memory");
#define __NVLITE_CAS(SEM, SCOPE, TY, C)                                           \
	asm volatile("atom.cas" SEM SCOPE "." TY " %0,[%1],%2,%3;"                \
	             : "=" C(r) : "l"(p), C(e), C(x) : "memory");
/* X(register type, PTX type, constraint, ...) for an N-byte value */
#define __NVLITE_BY_SIZE(N, X, ...)                                        \
	if constexpr ((N) == 1) {                                          \
		X(unsigned int, "b8", "r", __VA_ARGS__)                    \
	} else if constexpr ((N) == 2) {                                   \
		X(unsigned short, "b16", "h", __VA_ARGS__)                 \
	} else if constexpr ((N) == 4) {                                   \
		X(unsigned int, "b32", "r", __VA_ARGS__)                   \
	} else if constexpr ((N) == 8) {                                   \
		X(unsigned long long, "b64", "l", __VA_ARGS__)             \
	} else {                                                           \
		X(unsigned __int128, "b128", "q", __VA_ARGS__)             \
	}

/* T, where it must not be deduced (a value's type follows the pointer's) */
template <class T>
struct __nvlite_id {
	typedef T type;
};

/* Order O as an instruction's sem (__NVLITE_SEMS's M), and whether a
 * fence.sc goes before it. */
template <int O, bool Store>
struct __nvlite_order {
	enum {
		fence = O == __NV_ATOMIC_SEQ_CST,
		sem = O == __NV_ATOMIC_RELAXED || (O == __NV_ATOMIC_SEQ_CST && Store) ? 0
		    : O == __NV_ATOMIC_RELEASE ? 2
		    : O == __NV_ATOMIC_ACQ_REL ? 3 : 1
	};
};

template <int O, int S = __NV_THREAD_SCOPE_SYSTEM>
static __device__ __forceinline__ void __nvlite_thread_fence()
{
	if constexpr (O == __NV_ATOMIC_ACQ_REL) {
		__NVLITE_SCOPES(S, __NVLITE_FENCE, "", ".acq_rel")
	} else {
		__NVLITE_SCOPES(S, __NVLITE_FENCE, "", ".sc")
	}
}

template <int O, int S>
static __device__ __forceinline__ void __nvlite_fence_before()
{
	if constexpr (O == __NV_ATOMIC_SEQ_CST)
		__nvlite_thread_fence<O, S>();
}

/* The bits of a T in an R (the register an instruction takes), and back. */
template <class R, class T>
static __device__ __forceinline__ R __nvlite_bits(const T &v)
{
	R r = 0;
	__builtin_memcpy(&r, (const void *)&v, sizeof(T));
	return r;
}
template <class T, class R>
static __device__ __forceinline__ T __nvlite_value(R r)
{
	T v;
	__builtin_memcpy((void *)&v, &r, sizeof(T));
	return v;
}

template <class T>
struct __nvlite_size_ok {
	enum { any = sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16 };
};

#define __NVLITE_LOAD(R, TY, C, M, S)                                      \
	R r;                                                               \
	__NVLITE_SEMS(M, S, __NVLITE_LD, TY, C)                            \
	return __nvlite_value<T>(r);
template <int O, int S = __NV_THREAD_SCOPE_SYSTEM, class T>
static __device__ __forceinline__ T __nvlite_load(const volatile T *p)
{
	static_assert(O != __NV_ATOMIC_RELEASE && O != __NV_ATOMIC_ACQ_REL,
	              "atomic load's memory order cannot be release or acq_rel.");
	static_assert(__nvlite_size_ok<T>::any, "atomic load is valid only on types of 1, 2, 4, 8 or 16 bytes.");
	__nvlite_fence_before<O, S>();
	__NVLITE_BY_SIZE(sizeof(T), __NVLITE_LOAD, (__nvlite_order<O, false>::sem), S)
}

#define __NVLITE_STORE(R, TY, C, M, S)                                     \
	R x = __nvlite_bits<R>(v);                                         \
	__NVLITE_SEMS(M, S, __NVLITE_ST, TY, C)
template <int O, int S = __NV_THREAD_SCOPE_SYSTEM, class T>
static __device__ __forceinline__ void __nvlite_store(volatile T *p, typename __nvlite_id<T>::type v)
{
	static_assert(O == __NV_ATOMIC_RELAXED || O == __NV_ATOMIC_RELEASE || O == __NV_ATOMIC_SEQ_CST,
	              "atomic store's memory order cannot be consume, acquire or acq_rel.");
	static_assert(__nvlite_size_ok<T>::any, "atomic store is valid only on types of 1, 2, 4, 8 or 16 bytes.");
	__nvlite_fence_before<O, S>();
	__NVLITE_BY_SIZE(sizeof(T), __NVLITE_STORE, (__nvlite_order<O, true>::sem), S)
}

#define __NVLITE_XCHG(R, TY, C, M, S)                                      \
	R r, x = __nvlite_bits<R>(v);                                      \
	__NVLITE_SEMS(M, S, __NVLITE_RMW, ".exch", TY, C)                  \
	return __nvlite_value<T>(r);
template <int O, int S = __NV_THREAD_SCOPE_SYSTEM, class T>
static __device__ __forceinline__ T __nvlite_exchange(volatile T *p, typename __nvlite_id<T>::type v)
{
	static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
	              "atomic exchange is valid only on types of 4, 8 or 16 bytes.");
	static_assert(sizeof(T) != 16 || __NVLITE_B128_XCHG,
	              "128-bit atomic exchange or compare-and-exchange is supported on architecture sm_90 or above.");
	__nvlite_fence_before<O, S>();
	__NVLITE_BY_SIZE(sizeof(T), __NVLITE_XCHG, (__nvlite_order<O, false>::sem), S)
}

#define __NVLITE_CMPXCHG(R, TY, C, M, S)                                   \
	R r, e = __nvlite_bits<R>(*expected), x = __nvlite_bits<R>(desired); \
	__NVLITE_SEMS(M, S, __NVLITE_CAS, TY, C)                           \
	*expected = __nvlite_value<T>(r);                                  \
	return r == e;
template <int O1, int O2, int S = __NV_THREAD_SCOPE_SYSTEM, class T>
static __device__ __forceinline__ bool __nvlite_compare_exchange(volatile T *p, T *expected,
                                                                  typename __nvlite_id<T>::type desired)
{
	enum { O = O1 > O2 ? O1 : O2 };
	static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
	              "atomic compare-exchange is valid only on types of 2, 4, 8 or 16 bytes.");
	static_assert(sizeof(T) != 16 || __NVLITE_B128_XCHG,
	              "128-bit atomic exchange or compare-and-exchange is supported on architecture sm_90 or above.");
	__nvlite_fence_before<O, S>();
	__NVLITE_BY_SIZE(sizeof(T), __NVLITE_CMPXCHG, (__nvlite_order<O, false>::sem), S)
}

/* add (and sub), min, max, and, or, xor: the PTX type nvcc gives T, or
 * nvcc's message. */
enum { __NVLITE_ADD, __NVLITE_MINMAX, __NVLITE_BITWISE };
template <int K, class T>
static __device__ __forceinline__ void __nvlite_fetch_check()
{
	static_assert(K != __NVLITE_ADD || __is_floating_point(T) || !__is_signed(T) || sizeof(T) != 8,
	              "atomic operations add and sub are not valid on signed integer of size 8.");
	static_assert(K == __NVLITE_ADD || !__is_floating_point(T),
	              "atomic operations min and max are not supported on any floating-point types.");
	static_assert((__is_integral(T) || __is_floating_point(T)) && (sizeof(T) == 4 || sizeof(T) == 8),
	              "atomic arithmetic is valid only on integral and floating-point types of 4 or 8 bytes.");
}
#define __NVLITE_RMW_TYPE(K, T, X, ...)                                                      \
	if constexpr (__is_floating_point(T) && sizeof(T) == 4) {                            \
		X(float, "f32", "f", __VA_ARGS__)                                            \
	} else if constexpr (__is_floating_point(T)) {                                       \
		X(double, "f64", "d", __VA_ARGS__)                                           \
	} else if constexpr (K == __NVLITE_BITWISE && sizeof(T) == 4) {                      \
		X(unsigned int, "b32", "r", __VA_ARGS__)                                     \
	} else if constexpr (K == __NVLITE_BITWISE) {                                        \
		X(unsigned long long, "b64", "l", __VA_ARGS__)                               \
	} else if constexpr (sizeof(T) == 4 && __is_signed(T)) {                             \
		X(unsigned int, "s32", "r", __VA_ARGS__)                                     \
	} else if constexpr (sizeof(T) == 4) {                                               \
		X(unsigned int, "u32", "r", __VA_ARGS__)                                     \
	} else if constexpr (__is_signed(T)) {                                               \
		X(unsigned long long, "s64", "l", __VA_ARGS__)                               \
	} else {                                                                             \
		X(unsigned long long, "u64", "l", __VA_ARGS__)                               \
	}
#define __NVLITE_FETCH(R, TY, C, OP, M, S)                                 \
	R r, x = __nvlite_bits<R>(v);                                      \
	__NVLITE_SEMS(M, S, __NVLITE_RMW, OP, TY, C)                       \
	return __nvlite_value<T>(r);
#define __NVLITE_DEFINE_FETCH(NAME, K, OP)                                                      \
	template <int O, int S = __NV_THREAD_SCOPE_SYSTEM, class T>                             \
	static __device__ __forceinline__ T NAME(volatile T *p, typename __nvlite_id<T>::type v) \
	{                                                                                       \
		__nvlite_fetch_check<K, T>();                                                   \
		__nvlite_fence_before<O, S>();                                                  \
		__NVLITE_RMW_TYPE(K, T, __NVLITE_FETCH, OP, (__nvlite_order<O, false>::sem), S) \
	}
__NVLITE_DEFINE_FETCH(__nvlite_fetch_add, __NVLITE_ADD, ".add")
__NVLITE_DEFINE_FETCH(__nvlite_fetch_min, __NVLITE_MINMAX, ".min")
__NVLITE_DEFINE_FETCH(__nvlite_fetch_max, __NVLITE_MINMAX, ".max")
__NVLITE_DEFINE_FETCH(__nvlite_fetch_and, __NVLITE_BITWISE, ".and")
__NVLITE_DEFINE_FETCH(__nvlite_fetch_or, __NVLITE_BITWISE, ".or")
__NVLITE_DEFINE_FETCH(__nvlite_fetch_xor, __NVLITE_BITWISE, ".xor")
template <int O, int S = __NV_THREAD_SCOPE_SYSTEM, class T>
static __device__ __forceinline__ T __nvlite_fetch_sub(volatile T *p, typename __nvlite_id<T>::type v)
{
	return __nvlite_fetch_add<O, S>(p, (T)-v);
}

/* The _n forms take integral types only. */
template <class T>
static __device__ __forceinline__ void __nvlite_integral()
{
	static_assert(__is_integral(T), "non-generic nv atomic load, store, cas and exchange are valid only "
	                                "on integral types.");
}

/* nvcc's names: the order and scope arguments become template arguments. */
#define __nv_atomic_thread_fence(...) __nvlite_thread_fence<__VA_ARGS__>()
#define __nv_atomic_load_n(p, ...) (__nvlite_integral<__typeof__(*(p))>(), __nvlite_load<__VA_ARGS__>(p))
#define __nv_atomic_load(p, ret, ...) ((void)(*(ret) = __nvlite_load<__VA_ARGS__>(p)))
#define __nv_atomic_store_n(p, v, ...) (__nvlite_integral<__typeof__(*(p))>(), __nvlite_store<__VA_ARGS__>(p, v))
#define __nv_atomic_store(p, v, ...) __nvlite_store<__VA_ARGS__>(p, *(v))
#define __nv_atomic_exchange_n(p, v, ...) \
	(__nvlite_integral<__typeof__(*(p))>(), __nvlite_exchange<__VA_ARGS__>(p, v))
#define __nv_atomic_exchange(p, v, ret, ...) ((void)(*(ret) = __nvlite_exchange<__VA_ARGS__>(p, *(v))))
#define __nv_atomic_compare_exchange_n(p, e, d, weak, ...) \
	((void)(weak), __nvlite_integral<__typeof__(*(p))>(), __nvlite_compare_exchange<__VA_ARGS__>(p, e, d))
#define __nv_atomic_compare_exchange(p, e, d, weak, ...) \
	((void)(weak), __nvlite_compare_exchange<__VA_ARGS__>(p, e, *(d)))
#define __nv_atomic_fetch_add(p, v, ...) __nvlite_fetch_add<__VA_ARGS__>(p, v)
#define __nv_atomic_fetch_sub(p, v, ...) __nvlite_fetch_sub<__VA_ARGS__>(p, v)
#define __nv_atomic_fetch_min(p, v, ...) __nvlite_fetch_min<__VA_ARGS__>(p, v)
#define __nv_atomic_fetch_max(p, v, ...) __nvlite_fetch_max<__VA_ARGS__>(p, v)
#define __nv_atomic_fetch_and(p, v, ...) __nvlite_fetch_and<__VA_ARGS__>(p, v)
#define __nv_atomic_fetch_or(p, v, ...) __nvlite_fetch_or<__VA_ARGS__>(p, v)
#define __nv_atomic_fetch_xor(p, v, ...) __nvlite_fetch_xor<__VA_ARGS__>(p, v)
#define __nv_atomic_add(p, v, ...) ((void)__nvlite_fetch_add<__VA_ARGS__>(p, v))
#define __nv_atomic_sub(p, v, ...) ((void)__nvlite_fetch_sub<__VA_ARGS__>(p, v))
#define __nv_atomic_min(p, v, ...) ((void)__nvlite_fetch_min<__VA_ARGS__>(p, v))
#define __nv_atomic_max(p, v, ...) ((void)__nvlite_fetch_max<__VA_ARGS__>(p, v))
#define __nv_atomic_and(p, v, ...) ((void)__nvlite_fetch_and<__VA_ARGS__>(p, v))
#define __nv_atomic_or(p, v, ...) ((void)__nvlite_fetch_or<__VA_ARGS__>(p, v))
#define __nv_atomic_xor(p, v, ...) ((void)__nvlite_fetch_xor<__VA_ARGS__>(p, v))

#pragma clang diagnostic pop
#endif

#endif
