#ifndef NV_STAGES_PTXFIX_H
#define NV_STAGES_PTXFIX_H
/*
 * ptxfix: corrections to the PTX text LLVM's NVPTX backend prints, where
 * ptxas compiles what it prints worse than the same code said another way.
 */
#include <stddef.h>

/* Under 32-bit local pointers NVPTX takes a local array's address from the
 * 64-bit frame register and truncates it (add.u64 %rd1, %SPL, 0;
 * cvt.u32.u64 %r1, %rd1), and ptxas then keeps the array in local memory:
 * a stack frame that the same kernel with 64-bit local pointers, or with
 * the address taken from the depot itself, does not have (llm.c's
 * softmax_autoregressive_backward_kernel4: 32 bytes, none).  Each such
 * truncation becomes mov.u32 %r1, __local_depotN (plus the offset).  A new
 * copy of the text (its length in *outlen); *changed, if not NULL, counts
 * the truncations replaced. */
char *nv_ptx_local_addresses(const char *ptx, size_t len, size_t *outlen, unsigned *changed);

#endif
