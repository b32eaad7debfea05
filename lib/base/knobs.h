#ifndef NV_BASE_KNOBS_H
#define NV_BASE_KNOBS_H
/*
 * knobs: the values of the rows of knobs.def for this process.  A knob is
 * set with -name=value (or -name for a boolean) on any program that owns it.
 */

/* The programs of the toolchain, as a bit mask for knob ownership. */
enum nv_stage {
	NV_STAGE_REFLECT = 1 << 0,
	NV_STAGE_INLINE = 1 << 1,
	NV_STAGE_UNROLL = 1 << 2,
	NV_STAGE_REMAT = 1 << 3,
	NV_STAGE_VECTORIZE = 1 << 4,
	NV_STAGE_SPLIT = 1 << 5,
	NV_STAGE_LINK = 1 << 6,
	NV_STAGE_OPT = 1 << 7,
	NV_STAGE_LLC = 1 << 8,
	NV_STAGE_DRIVER = 1 << 9,
};

enum nv_knob_type { NV_KNOB_BOOL, NV_KNOB_INT, NV_KNOB_STR };

enum nv_knob_id {
#define KNOB(id, name, stages, type, def, lo, hi, help) NV_KNOB_##id,
#include "knobs.def"
	NV_KNOB_COUNT
};

struct nv_knob {
	const char *name;
	unsigned stages;
	enum nv_knob_type type;
	const char *def;
	const char *help;
	int llvm;            /* forwarded to LLVM's option parser */
	long long lo, hi;    /* range of an INT knob */
};

/* The table, indexed by enum nv_knob_id. */
extern const struct nv_knob nv_knobs[NV_KNOB_COUNT];

/* The program name of a single stage bit ("nv-llc"). */
const char *nv_stage_name(unsigned stage);
/* The knob called name (no leading dash), or -1. */
int nv_knob_find(const char *name);
/* Set knob id from text; -1 with *why set if the value does not fit its type. */
int nv_knob_set(int id, const char *value, const char **why);
/* Set knob id from flag's text after its '=' (v NULL: the flag has none,
 * a boolean's 1): NULL, or why it cannot be (one line, allocated). */
char *nv_knob_take(int id, const char *flag, const char *v);
/* True if the knob was set on the command line. */
int nv_knob_is_set(int id);
/* Value of a BOOL or INT knob. */
long long nv_knob_int(int id);
/* Value of a STR knob. */
const char *nv_knob_str(int id);
/* Hand every set LLVM knob to LLVM's option parser (once per process). */
void nv_knobs_apply_llvm(void);

#endif
