#ifndef NV_STAGES_LINK_H
#define NV_STAGES_LINK_H
/*
 * link: joining modules, and libdevice.
 *
 * nv_link_modules is LLVMLinkModules2 with the checks it leaves to
 * warnings: both modules must be for the same target triple and data
 * layout.  nv_link_libdevice brings in only the libdevice functions a
 * module calls (transitively), makes them internal and drops the rest, as
 * cicc does; libdevice's own triple (nvptx64-nvidia-gpulibs) and data
 * layout are replaced by the module's before linking, so no warning.
 *
 * nv-split's linkage records (a later stage) are restored after the
 * modules are joined and before libdevice is linked.
 */
#include <llvm-c/Types.h>

/* Link src (consumed) into dst; src_name names it in errors.  0 or -1. */
int nv_link_modules(LLVMModuleRef dst, LLVMModuleRef src, const char *src_name);
/* The libdevice file: path if given, else under $CUDA_PATH or /usr/local/cuda;
 * NULL if none exists.  Caller frees. */
char *nv_libdevice_path(const char *path);
/* The first __nv_* function m declares without defining, or NULL. */
LLVMValueRef nv_libdevice_first_use(LLVMModuleRef m);
/* Link what m calls of libdevice at path; *nfuncs = how many functions it
 * called (their callees come along).  libdevice is read lazily, so only the
 * bodies linked are read; an untrusted path (one the user named) is first
 * parsed in full by a child, like any input.  0 or -1. */
int nv_link_libdevice(LLVMModuleRef m, const char *path, int trusted, unsigned *nfuncs);
/* nvcc's -use_fast_math: every call of a single-precision libdevice function
 * that CUDA's math headers then map to its fast approximation (expf to
 * __expf, tanhf to tanh.approx...) calls libdevice's __nv_fast_ version
 * instead; clang's headers map only cosf, sinf, sincosf, logf and log2f.
 * Before nv_link_libdevice.  A remark per function; how many were changed. */
unsigned nv_libdevice_fast_math(LLVMModuleRef m);
/* Whole-program mode: make every defined function that is not a kernel
 * internal; returns how many changed.  Variables keep their linkage (the
 * host reaches __device__ variables by name). */
unsigned nv_link_internalize(LLVMModuleRef m);
/* Delete the internal and private functions and globals of m that nothing
 * uses, and unused declarations, until none is left (a deleted body can free
 * others).  Returns how many function bodies went. */
unsigned nv_drop_unused_internals(LLVMModuleRef m);
/* What nvcc's cudafe++ gives device code that clang's front end does not:
 * __managed__ variables (annotate("nvvm.managed")) marked managed for
 * NVPTX, static kernels named as nvcc names them (unless clang_names: the
 * host side is clang's and registers clang's names), __cxa_pure_virtual
 * defined (a trap), host functions with internal linkage that device code
 * calls (cudaMalloc<T>: no file can define them) defined as a trap, as
 * nvcc makes such a call unreachable, kernels of other files launched from device code
 * declared kernels, -rdc's static variables the host names (NAME__static__ID)
 * used by that name, asm statements through which no thread sees another
 * (ld, st, cvt, arithmetic) not convergent, as nvcc's front end marks none
 * and clang marks all (knob nv-link-asm-convergent).  Returns how many
 * changed. */
unsigned nv_link_cudafe(LLVMModuleRef m, int clang_names);
/* nvcc's name for the kernel clang names name, when clang marks its
 * internal linkage (a static kernel: _ZL6kernelPf -> _Z6kernelPf,
 * _ZN2nsL1kEPf -> _ZN2ns1kEPf); NULL when nvcc's name is clang's.  Caller
 * frees. */
char *nv_link_nvcc_kernel_name(const char *name);
/* The host side of a .cu file, as clang's CUDA host mode compiles it, given
 * what nvcc's host object has: each kernel registered under nvcc's name (a
 * static kernel's as -cudafe names it on the device side), and the launch
 * stub of each kernel with external linkage also named as nvcc's host code
 * names the kernel (its own mangled name: _Z1kPf, where clang names the stub
 * _Z16__device_stub__kPf), which host code compiled by another compiler
 * calls and takes the address of.  Returns how many changed. */
unsigned nv_link_cudafe_host(LLVMModuleRef m, int static_templates);
/* static_templates: nvcc's -static-global-template-stub=true (its default
 * without -rdc): a template kernel's stub and its nvcc-named alias become
 * internal, so each unit launches the instantiation of its own device code. */

#endif
