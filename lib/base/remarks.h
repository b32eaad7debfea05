#ifndef NV_BASE_REMARKS_H
#define NV_BASE_REMARKS_H
/*
 * remarks: optimization remarks, as LLVM's: on stderr under
 * -pass-remarks*=REGEX (prog: remark: ... [-pass-remarks=PASS]), and in
 * LLVM's YAML under -pass-remarks-output=FILE, written atomically when the
 * stage ends.
 */
#include <stddef.h>

#include <llvm-c/Types.h>

enum nv_remark_kind { NV_REMARK_PASSED, NV_REMARK_MISSED, NV_REMARK_ANALYSIS };

/* Compile the remark filters and open the YAML sink (NULL = off).  Returns
 * -1 after printing an error if a regex is invalid. */
int nv_remarks_setup(const char *passed, const char *missed, const char *analysis,
                     const char *yaml_path);
/* True when a remark of this kind from pass would go anywhere. */
int nv_remark_enabled(enum nv_remark_kind kind, const char *pass);
/* Emit a remark from pass (remark name `name`) about `at` (an instruction or
 * function, for the debug location and function name). */
void nv_remark(enum nv_remark_kind kind, const char *pass, const char *name, LLVMValueRef at,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A source position, as a DILocation gives it (file not NUL-terminated). */
struct nv_srcloc {
	const char *file;
	size_t len;
	unsigned line, col;
};
/* Instruction i's debug location (all zero when it has none). */
void nv_srcloc_of(LLVMValueRef i, struct nv_srcloc *loc);
/* Where function f starts in the source: its DISubprogram's line (all zero
 * when it has none). */
void nv_srcloc_of_function(LLVMValueRef f, struct nv_srcloc *loc);
/* nv_remark at a source position: loc, when it has a line, stands for the
 * debug location of `at` (a loop's start, say). */
void nv_remark_loc(enum nv_remark_kind kind, const char *pass, const char *name, LLVMValueRef at,
                   const struct nv_srcloc *loc, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Write the YAML remarks file atomically; -1 on error (already reported). */
int nv_remarks_finish(void);

#endif
