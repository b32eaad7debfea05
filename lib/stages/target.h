#ifndef NV_STAGES_TARGET_H
#define NV_STAGES_TARGET_H
/*
 * target: the NVPTX target.  sm_XX names as nvcc 13 accepts them (sm_75 and
 * newer), the PTX ISA each needs, the 64-bit data layouts, target machines.
 *
 * A module's data layout says how wide its pointers into shared, constant
 * and local memory are: 64 bits, LLVM's default, or 32 (short pointers:
 * what cicc uses, and what clang's -fcuda-short-ptr makes).  Every stage
 * makes its target machine with the module's width, and keeps it.
 */
#include <llvm-c/TargetMachine.h>

#define NV_TRIPLE "nvptx64-nvidia-cuda"
#define NV_DEFAULT_ARCH "sm_75" /* nvcc 13's default */

struct nv_arch {
	const char *name; /* "sm_90a" */
	int sm;           /* 90 */
	int ptx;          /* lowest PTX ISA version, times ten (78 = 7.8) */
};

/* The arch called name ("sm_90" or "compute_90"), or NULL. */
const struct nv_arch *nv_target_arch(const char *name);
/* The arch called name; a usage error (exit 2) with a suggestion if none. */
const struct nv_arch *nv_target_arch_or_die(const char *name);
/* The closest valid arch name to a bad one, for "did you mean". */
const char *nv_target_suggest(const char *name);
/* Space-separated list of every valid arch. */
const char *nv_target_arch_list(void);
/* Register the NVPTX backend with LLVM (idempotent). */
void nv_target_init(void);
/* A target machine for arch at optimization level 0..3, with m's pointer
 * widths (64-bit ones for m NULL); dies on failure. */
LLVMTargetMachineRef nv_target_machine(const struct nv_arch *arch, int olevel, LLVMModuleRef m);
/* True if m's data layout has 32-bit shared, constant and local pointers. */
int nv_target_short_ptr(LLVMModuleRef m);
/* For an NVPTX module, a target machine so cost models see the GPU: arch,
 * else the target-cpu of its first function that has one, else sm_75.
 * NULL for a module of another target (or none). */
LLVMTargetMachineRef nv_target_for_module(LLVMModuleRef m, const char *arch, int olevel);
/* The XX of the machine's sm_XX; 0 for no machine or another CPU. */
int nv_target_sm(LLVMTargetMachineRef tm);
/* -1 after an error when m names a target other than NVPTX (none is fine). */
int nv_target_check(LLVMModuleRef m);
/* Give m the NVPTX triple and data layout when it has none; -1 after an
 * error when m is for another target. */
int nv_target_adopt(LLVMModuleRef m, LLVMTargetMachineRef tm);
/* True if fn is a kernel (__global__): the ptx_kernel calling convention,
 * or a "kernel" entry in !nvvm.annotations. */
int nv_is_kernel(LLVMValueRef fn);

#endif
