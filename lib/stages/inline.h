#ifndef NV_STAGES_INLINE_H
#define NV_STAGES_INLINE_H
/*
 * inline: cicc's inliner (Model A, with Model D's intrinsic bonus and the
 * budget-free small-callee rule of the LLVM inliner cicc runs before it).
 *
 * Call sites are decided bottom-up over the call graph's SCCs, each caller's
 * sites in program order, so a callee is measured with its own inlining
 * done.  A site is refused for what the callee is (a declaration, noinline,
 * optnone, interposable, variadic, recursive, not analysable, too many
 * switches); else inlined for free when always_inline, -nv-inline-all, the
 * last call of an internal function, or small (the LLVM inliner cicc runs
 * first); else charged its cost
 *
 *   size + inline-switchctrl per switch case - 2000 if it uses warp/tensor
 *   intrinsics (Model D)
 *
 * against the caller's budget (inline-budget, inline-adj-budget1 for
 * kernels) and the module's (inline-total-budget).  Sizes are instructions,
 * loops counted as nv-unroll will fully unroll them: cicc measures callees
 * after its CGSCC walk has simplified and unrolled them, and charges the
 * body alone (13r + 1 for r rounds of 13 instructions, measured), not the
 * .param traffic, which only explains a refusal.
 *
 * Every decision becomes a call-site attribute (alwaysinline or noinline),
 * so no later inliner second-guesses it; LLVM's always-inliner does the
 * cloning.
 */
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Types.h>

/* Decide and inline the call sites of m, merge the allocas of inlined
 * callees whose lifetimes do not overlap, and delete the internal functions
 * left without callers.  At olevel 0 only always_inline callees are inlined.
 * tm may be NULL.  0, or -1 after an error message. */
int nv_inline_module(LLVMModuleRef m, LLVMTargetMachineRef tm, int olevel);

/* The size nv_inline_module gives a function body: its instructions (debug
 * and lifetime markers aside), a loop's body counted once per iteration
 * when nv-unroll would fully unroll it. */
long long nv_inline_size(LLVMValueRef fn);

#endif
