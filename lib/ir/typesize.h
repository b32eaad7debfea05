#ifndef NV_IR_TYPESIZE_H
#define NV_IR_TYPESIZE_H
/*
 * typesize: sizes and alignments of types through a module's data layout,
 * for .param marshalling costs and local arrays.  Sized types only.
 */
#include <stdint.h>

#include <llvm-c/Types.h>

/* Bytes a store of ty writes (i1: 1). */
uint64_t nv_type_store_size(LLVMModuleRef m, LLVMTypeRef ty);
/* Bytes between array elements of ty (store size rounded to the ABI alignment). */
uint64_t nv_type_alloc_size(LLVMModuleRef m, LLVMTypeRef ty);
/* The ABI alignment of ty in bytes. */
unsigned nv_type_align(LLVMModuleRef m, LLVMTypeRef ty);
/* Whether ty has a size at all (not void, label, function, opaque struct). */
int nv_type_sized(LLVMTypeRef ty);

#endif
