#include "usage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/util.h"
#include "../ir/occupancy.h"
#include "chain.h"

/* The kernels of a PTX file that declare their block: .maxntid or
 * .reqntid (x * y * z), read once. */
struct bounds {
	struct nv_strv name;
	unsigned *threads;
};

static void
read_bounds(const char *ptx, struct bounds *bs)
{
	static const char *const linkage[] = { ".visible ", ".weak ", ".extern " };
	FILE *fp = fopen(ptx, "r");
	char *line = NULL, *entry = NULL;
	size_t cap = 0;

	if (!fp)
		return;
	while (getline(&line, &cap, fp) > 0) {
		const char *e = line + strspn(line, " \t");
		unsigned x = 1, y = 1, z = 1;

		for (size_t k = 0; k < sizeof(linkage) / sizeof(*linkage); k++)
			if (!strncmp(e, linkage[k], strlen(linkage[k])))
				e += strlen(linkage[k]);
		if (!strncmp(e, ".entry ", 7)) {
			free(entry);
			entry = xasprintf("%.*s", (int)strcspn(e + 7, "( \t\n"), e + 7);
		} else if (entry && strchr(line, '{')) {
			free(entry);
			entry = NULL;
		} else if (entry && (!strncmp(e, ".maxntid", 8) || !strncmp(e, ".reqntid", 8)) &&
		           sscanf(e + 8, " %u , %u , %u", &x, &y, &z) >= 1 && x * y * z <= 1024) {
			bs->threads = xrealloc(bs->threads, (bs->name.n + 1) * sizeof(*bs->threads));
			bs->threads[bs->name.n] = x * y * z;
			nv_strv_push(&bs->name, entry);
			free(entry);
			entry = NULL;
		}
	}
	free(entry);
	free(line);
	fclose(fp);
}

/* Kernel name's block size, else 0. */
static unsigned
bounds_of(const struct bounds *bs, const char *name)
{
	for (size_t i = 0; i < bs->name.n; i++)
		if (!strcmp(bs->name.v[i], name))
			return bs->threads[i];
	return 0;
}

/* ptxas -v's number before `what` in line ("40 registers", "1024 bytes smem"). */
static unsigned
number_before(const char *line, const char *what)
{
	const char *at = strstr(line, what);

	while (at && at > line && at[-1] == ' ')
		at--;
	while (at && at > line && at[-1] >= '0' && at[-1] <= '9')
		at--;
	return at ? (unsigned)strtoul(at, NULL, 10) : 0;
}

/* The name quoted after `lead` in line ("Compiling entry function 'K'"),
 * or the word after it ("Function properties for K"). */
static char *
name_after(const char *line, const char *lead)
{
	const char *at = strstr(line, lead);

	if (!at)
		return NULL;
	at += strlen(lead);
	if (*at == '\'')
		return xasprintf("%.*s", (int)strcspn(at + 1, "'"), at + 1);
	return xasprintf("%.*s", (int)strcspn(at, " \t\n"), at);
}

size_t
nv_drv_usage_read(const char *text, const char *ptx, int sm, struct nv_kernel_use **out)
{
	struct bounds bs = { 0 };
	struct nv_kernel_use *v = NULL;
	size_t n = 0;
	char *props = NULL;

	read_bounds(ptx, &bs);
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		char *line = xasprintf("%.*s", (int)len, l), *name;

		if ((name = name_after(line, "Compiling entry function "))) {
			v = xrealloc(v, (n + 1) * sizeof(*v));
			memset(&v[n], 0, sizeof(*v));
			v[n].name = name;
			v[n].threads = bounds_of(&bs, name);
			v[n].bounded = v[n].threads != 0;
			v[n].threads = v[n].threads ? v[n].threads : 256;
			n++;
		} else if ((name = name_after(line, "Function properties for "))) {
			free(props);
			props = name;
		} else if (strstr(line, "bytes stack frame") && props && n && !strcmp(props, v[n - 1].name)) {
			v[n - 1].stack = number_before(line, " bytes stack frame");
			v[n - 1].spill_st = number_before(line, " bytes spill stores");
			v[n - 1].spill_ld = number_before(line, " bytes spill loads");
		} else if (n && strstr(line, "Used ") && strstr(line, " registers")) {
			v[n - 1].regs = number_before(line, " registers");
			v[n - 1].smem = number_before(line, " bytes smem");
			nv_occupancy_blocks(sm, v[n - 1].regs, v[n - 1].smem, v[n - 1].threads, &v[n - 1].occ);
			v[n - 1].step = 0;
			if (v[n - 1].occ.blocks && !strcmp(v[n - 1].occ.limit, "registers"))
				for (unsigned r = v[n - 1].regs; r-- > 1 && !v[n - 1].step;) {
					struct nv_occupancy more;

					nv_occupancy_blocks(sm, r, v[n - 1].smem, v[n - 1].threads, &more);
					if (more.blocks > v[n - 1].occ.blocks)
						v[n - 1].step = r, v[n - 1].step_blocks = more.blocks;
				}
			v[n - 1].used = 1;
		}
		free(line);
		l += len + (nl != NULL);
	}
	free(props);
	nv_strv_free(&bs.name);
	free(bs.threads);
	*out = v;
	return n;
}

void
nv_drv_usage_free(struct nv_kernel_use *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* "N blocks of T threads (...) an SM, W of 64 warps, limited by X[; R
 * registers would give M]", or why a block cannot run. */
void
nv_drv_usage_occupancy(FILE *fp, const struct nv_kernel_use *k, int sm)
{
	if (!k->occ.blocks) {
		fprintf(fp, "a block of %u threads cannot run (%s)", k->threads, k->occ.limit);
		return;
	}
	fprintf(fp, "%u block%s of %u threads (%s) an SM, %u of %u warps, limited by %s", k->occ.blocks,
	        k->occ.blocks == 1 ? "" : "s", k->threads, k->bounded ? "its launch bounds" : "no launch bounds",
	        k->occ.warps, nv_occupancy_max_warps(sm), k->occ.limit);
	if (k->step)
		fprintf(fp, "; %u registers would give %u", k->step, k->step_blocks);
}

int
nv_drv_run_usage(const struct nv_job *j)
{
	int err = nv_drv_diags_new(), rc, sm = 0;
	const char *ptx = NULL;
	size_t len;
	char *text;

	rc = nv_drv_run_tool_saying(j, err);
	for (size_t k = 1; j->argv[k]; k++)
		if (!strcmp(j->argv[k], "-o"))
			ptx = j->argv[k - 1];
	if (j->arch && !strncmp(j->arch, "sm_", 3))
		sm = atoi(j->arch + 3);
	if (!rc && ptx && sm) {
		struct nv_kernel_use *ks;
		size_t n;

		text = nv_drv_diags_text(err, &len);
		n = nv_drv_usage_read(text, ptx, sm, &ks);
		for (size_t i = 0; i < n; i++)
			if (ks[i].used) {
				fprintf(stderr, "nvcc-lite: occupancy of '%s' on sm_%d: ", ks[i].name, sm);
				nv_drv_usage_occupancy(stderr, &ks[i], sm);
				fputc('\n', stderr);
			}
		nv_drv_usage_free(ks, n);
		free(text);
		fflush(stderr);
	}
	close(err);
	return rc;
}
