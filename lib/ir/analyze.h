#ifndef NV_IR_ANALYZE_H
#define NV_IR_ANALYZE_H
/*
 * analyze: the lib analyses printed in a stable text form, per defined
 * function, so tests can diff them against LLVM's (opt print<loops>,
 * print<scalar-evolution>).  Loops and trip counts use LLVM's phrasing.
 */
#include <stdio.h>

#include <llvm-c/Types.h>

/* The names -print= accepts, space-separated. */
extern const char nv_analyze_names[];
/* True if name is one of them. */
int nv_analyze_known(const char *name);
/* Print analysis `name` of every defined function of m to fp; sm is the
 * GPU for occupancy. */
void nv_analyze_print(FILE *fp, LLVMModuleRef m, const char *name, int sm);

#endif
