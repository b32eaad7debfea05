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

static void
say(const char *text, const struct bounds *bs, int sm)
{
	char *name = NULL;

	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n'), *q;
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		char *line = xasprintf("%.*s", (int)n, l);

		if ((q = strstr(line, "Compiling entry function '"))) {
			char *end;

			free(name);
			name = xstrdup(q + 26);
			end = strchr(name, '\'');
			if (end)
				*end = '\0';
		} else if (name && strstr(line, "Used ") && strstr(line, " registers")) {
			unsigned regs = number_before(line, " registers"), smem = number_before(line, " bytes smem");
			unsigned bounds = bounds_of(bs, name), threads = bounds ? bounds : 256;
			struct nv_occupancy o, more;

			nv_occupancy_blocks(sm, regs, smem, threads, &o);
			fprintf(stderr, "nvcc-lite: occupancy of '%s' on sm_%d: ", name, sm);
			if (!o.blocks)
				fprintf(stderr, "a block of %u threads cannot run (%s)", threads, o.limit);
			else
				fprintf(stderr, "%u block%s of %u threads (%s) an SM, %u of %u warps, limited by %s",
				        o.blocks, o.blocks == 1 ? "" : "s", threads,
				        bounds ? "its launch bounds" : "no launch bounds", o.warps,
				        nv_occupancy_max_warps(sm), o.limit);
			if (o.blocks && !strcmp(o.limit, "registers"))
				for (unsigned r = regs; r-- > 1;) {
					nv_occupancy_blocks(sm, r, smem, threads, &more);
					if (more.blocks > o.blocks) {
						fprintf(stderr, "; %u registers would give %u", r, more.blocks);
						break;
					}
				}
			fputc('\n', stderr);
			free(name);
			name = NULL;
		}
		free(line);
		l += n + (nl != NULL);
	}
	free(name);
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
		struct bounds bs = { 0 };

		read_bounds(ptx, &bs);
		text = nv_drv_diags_text(err, &len);
		say(text, &bs, sm);
		free(text);
		nv_strv_free(&bs.name);
		free(bs.threads);
		fflush(stderr);
	}
	close(err);
	return rc;
}
