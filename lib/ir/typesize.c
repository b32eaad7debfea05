#include "typesize.h"

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

uint64_t
nv_type_store_size(LLVMModuleRef m, LLVMTypeRef ty)
{
	return LLVMStoreSizeOfType(LLVMGetModuleDataLayout(m), ty);
}

uint64_t
nv_type_alloc_size(LLVMModuleRef m, LLVMTypeRef ty)
{
	return LLVMABISizeOfType(LLVMGetModuleDataLayout(m), ty);
}

unsigned
nv_type_align(LLVMModuleRef m, LLVMTypeRef ty)
{
	return LLVMABIAlignmentOfType(LLVMGetModuleDataLayout(m), ty);
}

int
nv_type_sized(LLVMTypeRef ty)
{
	return LLVMTypeIsSized(ty);
}
