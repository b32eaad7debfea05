#ifndef NV_DRIVER_EXPLAIN_H
#define NV_DRIVER_EXPLAIN_H
/*
 * explain: --explain at run time.  For the PTX of one compile, per kernel:
 * ptxas's registers, spills and frame and the occupancy they give (usage);
 * the point where nvcc-lite's liveness on the IR that goes to instruction
 * selection sees the most values live, read from the explain compile's
 * module (nv-opt -print=peak: the same compile with debug information,
 * planned beside the real one), with those values grouped by source
 * variable and the loops around them; and a ladder of ptxas runs with
 * -maxrregcount at the next occupancy steps below the kernel's count,
 * with what each costs in spills.  Text on stderr, or a JSON object a
 * kernel (--explain-format=json).
 */
#include "job.h"

/* Run explain job j (its explain set: the PTX; its argv: the analysis).
 * Returns 0, or -1 when ptxas could not read the PTX (said). */
int nv_drv_run_explain(const struct nv_job *j);

#endif
