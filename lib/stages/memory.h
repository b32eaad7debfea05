#ifndef NV_STAGES_MEMORY_H
#define NV_STAGES_MEMORY_H
/*
 * memory: cicc's memory passes that LLVM lacks, run by name from pipeline
 * text (stdpipe): set-local-array-alignment, set-extern-shared-alignment,
 * lower-aggr-copies; and one nv-llc runs at its cut: generic shared
 * addresses from one conversion.
 */
#include <llvm-c/Types.h>

/* cicc's set-local-array-alignment over every function of m: each alloca
 * of a statically sized array gets the largest power of two that divides
 * its size, at most 16 (16 itself under use-max-local-array-alignment),
 * where that raises its alignment; a remark per alloca raised.  Nothing
 * under disable-set-local-array-alignment.  The number raised. */
unsigned nv_memory_align_local_arrays(LLVMModuleRef m);

/* Over m: each declaration of dynamic shared memory (extern __shared__
 * T a[], an external [0 x T] in the shared space) aligned below 16 gets 16,
 * as cicc declares it; a remark per array.  The number raised. */
unsigned nv_memory_align_extern_shared(LLVMModuleRef m);
/* base-address-strength-reduce: in a loop, p[x - k] with p and k the same
 * on every trip and p[x] computed before it becomes p[x] + -k, -k computed
 * before the loop (off with -do-base-address-strength-reduce=0).  Returns
 * how many addresses. */
unsigned nv_memory_base_address_strength_reduce(LLVMModuleRef m);
/* base-address-strength-reduce-chain: in a block, p[sext(i + c*s)] from an
 * earlier p[sext(i)] accessed there, one 64-bit step (i nsw); count. */
unsigned nv_memory_base_address_chain(LLVMModuleRef m);

/* memory-space-opt: each WMMA fragment load or store on a generic pointer
 * that is a GEP chain over a conversion from shared or global memory calls
 * the intrinsic's variant for that space (off with -memory-space-opt=0).
 * Returns how many calls. */
unsigned nv_memory_space_opt(LLVMModuleRef m);

/* byval-args-by-value: a call passing a struct byval to a function m only
 * declares, every use of it a direct call, passes the struct's value, the
 * declaration retyped so (where the byval alignment is the struct's own:
 * the same .param either way); a remark per call (off with
 * -byval-args-by-value=0).  Returns how many calls. */
unsigned nv_memory_byval_args_by_value(LLVMModuleRef m);

/* cicc's lower-aggr-copies over every function of m: a memcpy into or out
 * of a whole local struct or array of at most 16 fields and no padding, and
 * a memset of one to zero, become a load and store per field, for SROA to
 * promote; a memcpy of 4, 8 or 16 bytes between other memory, one load and
 * store of <N x i32>.  The number of calls lowered. */
unsigned nv_memory_lower_aggr_copies(LLVMModuleRef m);

/* Over every function of m, as it enters instruction selection: each
 * conversion of a GEP into shared memory to a generic pointer becomes the
 * same GEP in the generic space over one conversion of its base, as cicc
 * computes them (ptxas folds the offsets; a cvta per address it cannot).
 * A remark per function changed.  The number of conversions replaced. */
unsigned nv_memory_convert_shared_once(LLVMModuleRef m);

/* Over every function of m, as it enters instruction selection: a local
 * (alloca) that is only written (stores, memcpy/memmove/memset into it,
 * lifetime markers) goes, with its writes.  NVPTX copies a byval kernel
 * parameter that the kernel writes to into a local, and the fields it never
 * reads stay there: a stack frame nvcc does not have (CUB's
 * DeviceReduceKernel with a GridEvenShare: 32 bytes).  A remark per local;
 * the number dropped. */
unsigned nv_memory_drop_write_only_locals(LLVMModuleRef m);

/* Over every device function (not kernel) of m: a byval parameter whose
 * address is used other than to load from it in the entry block is copied
 * into a local of its own on entry, and those uses take the copy.  LLVM 22's NVPTX cannot take
 * a parameter's address under 32-bit local pointers (a fatal "Copy one
 * register into another with a different width"); nv-llc runs this on
 * such modules before code generation.  The number of parameters copied. */
unsigned nv_memory_copy_escaping_byval(LLVMModuleRef m);

/* Over every function of m: the volatile loads and stores of a local
 * (alloca) whose address goes nowhere but into its own loads and stores
 * become plain ones.  No other thread, signal or longjmp can see a GPU
 * thread's local, and cicc emits plain ld.local/st.local for such a
 * volatile: ptxas then keeps it in registers, where a volatile one stays
 * in the stack frame (cuda-samples' calcHashD: volatile float4 p).  A
 * remark per local; the number of locals changed. */
unsigned nv_memory_unvolatile_locals(LLVMModuleRef m);

/* Over every function of m, before code generation (nv-llc): a local that
 * is only stored to and then passed to one vprintf call, all in one block
 * (clang's printf argument buffer), gets lifetime markers from its first
 * store to that call, so that stack colouring can give the buffers of
 * several printfs one slot, as cicc's frame has.  A remark per buffer; the
 * number marked (none under -printf-buffer-lifetimes=0). */
unsigned nv_memory_printf_lifetimes(LLVMModuleRef m);

/* Over every function of m, before code generation (nv-llc): a store
 * that a conditional branch skips, in a block of at most limit other
 * instructions that are cheap and cannot trap, becomes unconditional where
 * the block before the branch stored to the same bytes with nothing in
 * between that may write them: it stores select(taken, new, old), and the
 * block's instructions move above the branch.  An unrolled
 * `if (bit k) x ^= v[k]` (curand's Sobol skipahead) otherwise keeps every
 * loaded v[k] live across the branch.  A remark per store; the number
 * made unconditional (none under limit 0). */
unsigned nv_memory_unskip_stores(LLVMModuleRef m, unsigned limit);

/* A kernel's byval parameter whose address goes anywhere but loads: marked
 * "nvvm.grid_constant" where the kernel never writes it (and grid_constant:
 * the target has cvta.param), so that NVPTX takes its address in parameter
 * space; else copied to a local in 16-byte pieces, which its uses take.  An
 * inline asm given its address only reads it when the asm has no memory
 * clobber, or uses the operand only in reading instructions (ld, prefetch,
 * cp.async.bulk.tensor...).  The number of parameters marked or copied. */
unsigned nv_memory_kernel_byval(LLVMModuleRef m, int grid_constant);

/* The first device function (not kernel) of m with a byval parameter, or
 * NULL: at -O0 LLVM 22's NVPTX cannot read one under 32-bit local pointers. */
LLVMValueRef nv_memory_byval_device_fn(LLVMModuleRef m);

#endif
