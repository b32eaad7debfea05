#ifndef NV_BASE_DECISIONS_H
#define NV_BASE_DECISIONS_H
/*
 * decisions: the choices a stage takes, as lines a person can read and
 * edit, saved (-save-decisions=FILE) and taken back (-decisions=FILE):
 *
 *     STAGE FILE:LINE[#K] in FUNCTION CHOICE...
 *
 * STAGE names the stage and its run (inline, unroll-P, unswitch, vectorize,
 * unroll, unroll-D, remat),
 * FILE:LINE the source position of what was decided (a loop's start, a
 * call, a function's start), #K the K-th place of that stage with that position in that
 * function (K > 1: a line the unroller copied, two calls on one line),
 * FUNCTION the function it is in, CHOICE the stage's words for what it
 * chose.  A place without a source position (no line tables) is neither
 * saved nor replayed.  Blank lines and lines starting with '#' are skipped.
 * A line "target compute_XX" (or sm_XX) makes the lines after it, up to
 * the next such line, that GPU's alone: a build of several targets saves
 * one section each; the lines before any apply to every target.
 *
 * A stage asks nv_decision_begin for each place, takes the replayed choice
 * when there is one (else its own), and tells nv_decision_end what it took.
 * At the end, nv_decisions_finish writes the saved lines and warns of each
 * replayed line of this stage whose function this module defines that no
 * place took.
 */
#include <llvm-c/Types.h>

#include "remarks.h"

/* From the command line: save to save_path, replay from replay_path (each
 * NULL: not asked).  Reads the replay file now; exits on a bad one. */
void nv_decisions_init(const char *save_path, const char *replay_path);
/* True if decisions are saved or replayed. */
int nv_decisions_on(void);
/* This run's GPU (a stage's -arch: sm_90a): the replayed lines of other
 * targets' sections are not this run's.  NULL: only the lines outside
 * sections are. */
void nv_decisions_target(const char *arch);
/* Warn of each section of the replayed file for none of the n targets
 * names; -1 if there was one. */
int nv_decisions_targets(const char **names, size_t n);

struct nv_decision {
	char *key; /* "STAGE FILE:LINE[#K] in FUNCTION" (NULL: no position, nothing to do) */
};
/* A place of stage at loc in function fn: its key in d, and the choice the
 * replay file gives it (NULL: none). */
const char *nv_decision_begin(struct nv_decision *d, const char *stage, const struct nv_srcloc *loc,
                              const char *fn);
/* The choice taken at d's place (saved); releases d. */
void nv_decision_end(struct nv_decision *d, const char *choice);
/* Write the saved lines, and warn of each replayed line of stage (this
 * run's name) for a function m defines that no place took.  0, or -1
 * (said). */
int nv_decisions_finish(LLVMModuleRef m, const char *stage);

#endif
