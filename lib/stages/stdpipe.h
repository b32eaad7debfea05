#ifndef NV_STAGES_STDPIPE_H
#define NV_STAGES_STDPIPE_H
/*
 * stdpipe: the LLVM standard sub-pipelines that run between NVIDIA stages,
 * by name (cicc's "LLVM standard pipeline #N"), as new-PM pipeline text.
 * A pipeline text may name, at its top level, cicc's passes that LLVM
 * lacks (set-local-array-alignment, lower-aggr-copies: lib/stages/memory): they run between the
 * LLVM passes around them.
 */
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm-c/Types.h>

struct nv_stdpipe {
	const char *name;
	const char *passes; /* LLVM new-PM pipeline text */
	const char *what;
};

/* The table, terminated by a NULL name. */
extern const struct nv_stdpipe nv_stdpipes[];
/* The sub-pipeline called name, or NULL. */
const struct nv_stdpipe *nv_stdpipe_find(const char *name);
/* Run pipeline text over m with options po (tm may be NULL): NULL, or the
 * error message (the caller frees it). */
char *nv_stdpipe_run(LLVMModuleRef m, const char *text, LLVMTargetMachineRef tm,
                     LLVMPassBuilderOptionsRef po);
/* Run pipeline text over m (tm may be NULL); 0, or -1 after an error
 * message naming the pipeline. */
int nv_run_pipeline(LLVMModuleRef m, LLVMTargetMachineRef tm, const char *text);
/* Run a function pipeline text (LLVM's passes only) over fn alone; 0, or
 * -1 after an error message naming the pipeline. */
int nv_run_function_pipeline(LLVMValueRef fn, LLVMTargetMachineRef tm, const char *text);

#endif
