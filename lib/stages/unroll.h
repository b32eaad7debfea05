#ifndef NV_STAGES_UNROLL_H
#define NV_STAGES_UNROLL_H
/*
 * unroll: cicc's loop unroll decision (computeUnrollCount), and the driver
 * that hands each decision to LLVM's loop-unroll.
 *
 * The decision is a priority cascade; the first level that yields a count
 * wins, and every level reports what it saw as an analysis remark:
 *   1. local-array multiplier: the largest array alloca accessed in the
 *      loop scales the full-unroll budgets by min(max(elements, 1), 6);
 *   2. #pragma unroll N (llvm.loop.unroll.count); N == 1 keeps it rolled;
 *   3. full unrolling of a known trip count (#pragma unroll: the pragma
 *      budget; otherwise the threshold, boosted up to 400% when simulating
 *      the iterations shows the body folding), then a known maximum trip
 *      count (upper bound);
 *   4. peeling;
 *   5. static partial unrolling: the largest power of two that divides the
 *      trip count and fits the partial budget;
 *   6. runtime unrolling of an unknown (or odd) trip count, with a
 *      remainder loop;
 * then the small-function override.
 *
 * Sizes are nv_cost units: an unroll by C costs F + C * (body - F), F the
 * part of an iteration that does not replicate (NV_COST_LOOP_FIXED).
 */
#include <stdint.h>

#include <llvm-c/TargetMachine.h>
#include <llvm-c/Types.h>

/* The pass factory's parameter sets (the seed's configurations A-F). */
struct nv_unroll_config {
	char name;
	int olevel;                           /* -1: the stage's -O */
	int partial, runtime, upperbound, profile; /* 0 off, 1 on, -1 the knobs decide */
	const char *what;
};

/* The configuration called c ('A'..'F'), or NULL. */
const struct nv_unroll_config *nv_unroll_config(char c);

/* Budgets and switches for one function (cicc's UnrollParams). */
struct nv_unroll_params {
	unsigned threshold;         /* full unroll budget */
	unsigned boost;             /* MaxPercentThresholdBoost, percent */
	unsigned max_analyze;       /* largest trip count simulated */
	unsigned partial_threshold; /* partial and runtime unrolls' budget */
	unsigned pragma_threshold;
	unsigned count;             /* forced factor (unroll-count), 0 if none */
	unsigned default_count;     /* runtime factor before halving */
	unsigned max_count;         /* cap on partial/runtime factors */
	unsigned full_max_count;    /* largest trip count fully unrolled without pragma */
	int peel_count;             /* forced peel count, -1 if none */
	unsigned max_upper_bound, max_pragma_upper_bound;
	unsigned runtime_threshold; /* body budget for runtime unrolling */
	unsigned flat_trip;         /* smallest expected trip count for runtime unrolling */
	unsigned assumed_size;
	int array_indexed;          /* the multiplier counts an array the loop indexes at run time */
	unsigned small_function;    /* function size under which the override applies */
	int allow_partial, allow_remainder, runtime, upper_bound, profile;
	int runtime_convergent, epilog, waterfall;
	int seal_rolled;            /* mark a rolled loop of known trip count nounroll */
	int early;                  /* config P: the early step before Phase I */
	uint64_t early_size;        /* config P: the largest nest it unrolls whole (unroll-early-size) */
	unsigned early_around;      /* config P: the most the loop around a nest may cost besides it (unroll-early-around) */
	int multi_exit;             /* count a loop with side exits at its latch */
	int runtime_may_wrap;       /* count an unflagged IV stepping by a constant other than 1 */
};

/* The parameters of fn under configuration cfg at optimization level
 * olevel (the configuration's own level wins), from the knobs. */
void nv_unroll_params(struct nv_unroll_params *up, LLVMValueRef fn,
                      const struct nv_unroll_config *cfg, int olevel);

enum nv_unroll_how {
	NV_UNROLL_NONE,      /* stays rolled */
	NV_UNROLL_FULL,      /* count = trip count */
	NV_UNROLL_UPPER,     /* fully, to the maximum trip count */
	NV_UNROLL_PARTIAL,   /* count divides the trip count */
	NV_UNROLL_RUNTIME,   /* count with a remainder loop */
	NV_UNROLL_PEEL,      /* peel iterations off the front */
};

/* Marks on a loop after unrolling it (the PTX's .pragma "nounroll"). */
enum {
	NV_NOUNROLL_NONE,    /* open to later unrolling, by us or by ptxas */
	NV_NOUNROLL_NOW,     /* llvm.loop.unroll.disable: unrolled by a pragma's factor, or
	                        left rolled by the late unroll though its trip count is known */
	NV_NOUNROLL_LATE,    /* runtime-unrolled: llvm.loop.unroll.runtime.disable now, and
	                        llvm.loop.unroll.disable after the late unroll (-config=D) */
};

struct nv_unroll_decision {
	enum nv_unroll_how how;
	unsigned level;   /* the cascade level that decided (0: before it, 7: small function) */
	unsigned count;   /* unroll factor, or the peel count */
	int epilog;       /* for RUNTIME: remainder after the loop */
	int nounroll;     /* NV_NOUNROLL_*: how the unrolled loop is marked */
	char why[192];    /* for the remark */
};

/* Unroll the loops of m: canonicalize them, decide each loop (innermost
 * first, outer loops after their inner ones are done), and drive LLVM's
 * loop-unroll with the decisions.  tm may be NULL.  0, or -1 after an
 * error message. */
int nv_unroll_module(LLVMModuleRef m, LLVMTargetMachineRef tm,
                     const struct nv_unroll_config *cfg, int olevel);

/* -save-decisions and -decisions at the end of a run of configuration
 * cfg: the saved lines written, the replayed ones no loop took warned of
 * (base/decisions).  0, or -1. */
int nv_unroll_decisions_finish(LLVMModuleRef m, const struct nv_unroll_config *cfg);

/* Keep LLVM's own pipelines from unrolling: hide every loop that is not
 * already disabled behind llvm.loop.unroll.disable (pragmas included),
 * marked so that nv_unroll_unhide takes exactly those back. */
void nv_unroll_hide(LLVMModuleRef m);
void nv_unroll_unhide(LLVMModuleRef m);

#endif
