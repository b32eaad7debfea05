#ifndef NV_STAGES_REMAT_H
#define NV_STAGES_REMAT_H
/*
 * remat: cicc's IR rematerialization (nvvmrematerialize), run right before
 * instruction selection.  Three sub-passes, in cicc's order:
 *
 *  1. The main loop (do-remat): up to five rounds.  Each round measures the
 *     live-in register units of every block (lib/ir/liveness), sets a target
 *     (remat-maxreg-ceiling or the function's .maxnreg, else the next
 *     occupancy step bounded by remat-for-occ, else 80% of today's peak),
 *     takes the values live into every block above the target, keeps those
 *     that can be recomputed where they are used (no memory effects, leaves
 *     that are constants, kernel parameters, special registers or values
 *     live there anyway, invariant loads under remat-load), prices each as
 *     chain cost x use factor (remat-loop-trip per loop level the use is
 *     deeper than the definition), drops what the filters refuse, and pulls
 *     in the cheapest until the target is met: "uclone_" when one
 *     instruction is copied next to its uses (its operands are live there),
 *     "remat_" when a chain is recomputed from its leaves.
 *  2. IV demotion (remat-iv): a 64-bit loop induction variable whose values
 *     provably fit 32 bits becomes a 32-bit phi ("newBaseIV", step
 *     "demoteIV"); its uses read a sign extension ("substIV"), and the exit
 *     test compares 32-bit values ("iv_base_clone_" is the narrowed bound).
 *  3. NLO (simplify-live-out): a 64-bit value that leaves its block only to
 *     be truncated leaves it truncated ("nloNewBit"); a value that is a
 *     constant offset from another value leaving the block is recomputed
 *     where it is used ("nloNewAdd").
 *
 * Before them, narrowing (remat-narrow): a 64-bit expression that LSR or
 * SCEV rebuilt from zero- (sign-) extended 32-bit pieces, where a 32-bit
 * instruction with nuw (nsw) computes the same from the same pieces, becomes
 * that instruction's extension ("narrowed"), as cicc keeps a thread index
 * 32-bit and extends it once.  Only where the 32-bit value feeds a branch
 * that runs first, so that its being poison would already be undefined.
 *
 * Then uniform bases (remat-uniform-base): in a kernel, q = p[a] with p a
 * parameter and a uniform, used only as the base of q[b] (some in loops q
 * is not in), has each use become p[a + b], so that no 64-bit pointer
 * lives through the loops: ptxas keeps the uniform a in uniform registers.
 *
 * Then base reuse (remat-base-reuse): an address LSR expanded as
 * P + (A + B), where a GEP P + B (B an index times its element size) that
 * dominates it stays live past it anyway, becomes that GEP + A ("base_reuse"):
 * the pieces of B need not stay live up to a loop's start beside the
 * base (cicc's PTX keeps one of the two).
 *
 * Then loop-through (remat-loop-through), whatever the pressure: a value
 * defined before a loop, unused in it and used after it, is recomputed
 * ("lt_") at its use after the loop from integer arithmetic, casts and
 * GEPs over constants, kernel parameters and values live there anyway, so
 * that it no longer lives through the loop (not under a launch bound's
 * register cap).
 *
 * After them, sinking (remat-sink): within a block, a cheap instruction
 * moves down to just before its first user where no other value lives
 * longer for it by more units than it saves (operands needed there anyway,
 * or one of no more units), bottom up, so that a chain follows its last
 * link: straight-line pressure, which the live-in sets above do not see
 * (ptxas schedules within a block, but from the order it is given: a
 * value computed far ahead of its use often stays live that long).
 *
 * Last, call pins (remat-call-pin): a value whose uses all lie past a call
 * (to a function, not an intrinsic), and whose operands die where it is
 * computed, is read by an empty inline assembly statement at the end of
 * its block, so that LLVM's machine sinking does not move it past the call
 * and leave its operands live across it instead.
 *
 * Every decision is a remark of pass "nv-remat"; -dump-remat=N prints
 * cicc's dump lines to stderr.
 */
#include <llvm-c/Types.h>

struct nv_remat_opts {
	int sm;              /* sm_XX for the occupancy model */
	int do_remat;        /* 0 off, 1 uclone_ only, 2 chains of depth 2, 3 full */
	int iv;              /* remat-iv level */
	int load;            /* remat-load */
	int nlo;             /* simplify-live-out level */
	int narrow;          /* remat-narrow */
	int sink;            /* remat-sink */
	int base_reuse;      /* remat-base-reuse */
	int loop_through;    /* remat-loop-through */
	int opaque_sreg;     /* remat-opaque-sreg */
	int call_pin;        /* remat-call-pin */
	int uniform_base;    /* remat-uniform-base */
	long long ceiling, for_occ, occ_reach, use_limit, loop_trip, gep_cost, single_cost_limit;
	long long max_live_limit, lli_factor;
	int ignore_single_cost;
	int dump, dump_iv, dump_load, dump_nlo;
	const char *skip;    /* no-remat: comma-separated function names */
};

/* Read the options from the knob table. */
void nv_remat_opts_from_knobs(struct nv_remat_opts *o, int sm);
/* Run the sub-passes on every function with a body.  Returns the
 * number of instructions created. */
unsigned nv_remat_module(LLVMModuleRef m, const struct nv_remat_opts *o);

#endif
