#ifndef NV_STDPIPE_H
#define NV_STDPIPE_H
/*
 * stdpipe: the LLVM standard sub-pipelines that run between NVIDIA stages,
 * by name (cicc's "LLVM standard pipeline #N"), as new-PM pipeline text.
 */
#include <llvm-c/TargetMachine.h>
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
/* Run new-PM pipeline text over m (tm may be NULL); 0, or -1 after an error
 * message naming the pipeline. */
int nv_run_pipeline(LLVMModuleRef m, LLVMTargetMachineRef tm, const char *text);

#endif
