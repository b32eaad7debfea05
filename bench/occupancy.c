/*
 * occupancy: theoretical occupancy of kernels on one GPU, by
 * lib/ir/occupancy.c (CUDA's occupancy calculator rules), for
 * bench/corpus.sh's occupancy steps.
 *
 *	occupancy sm_XX
 *
 * Reads lines "REGISTERS SHARED_BYTES THREADS" (a "-" in any field: the
 * kernel was not measured) and writes for each "BLOCKS WARPS LIMIT":
 * resident blocks and warps per SM and what limits them ("- - -" for an
 * unmeasured kernel).  A bad line is an error naming it, and nothing is
 * written.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/occupancy.h"

static int
number(const char *s, unsigned *v)
{
	char *end;
	unsigned long n;

	if (*s < '0' || *s > '9')
		return 0;
	n = strtoul(s, &end, 10);
	if (*end || n > 0xffffffffUL)
		return 0;
	*v = (unsigned)n;
	return 1;
}

int
main(int argc, char **argv)
{
	char line[256], f[3][64], *out = NULL;
	unsigned sm, v[3], n = 0;
	size_t len = 0;
	FILE *o = open_memstream(&out, &len);

	if (!o)
		return 1;
	if (argc != 2 || strncmp(argv[1], "sm_", 3) || !number(argv[1] + 3, &sm)) {
		fprintf(stderr, "usage: occupancy sm_XX <lines of REGISTERS SHARED_BYTES THREADS\n");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		struct nv_occupancy occ;
		char extra[2];

		n++;
		if (sscanf(line, "%63s %63s %63s %1s", f[0], f[1], f[2], extra) != 3) {
			fprintf(stderr, "occupancy: line %u: expected REGISTERS SHARED_BYTES THREADS\n", n);
			return 1;
		}
		if (!strcmp(f[0], "-") || !strcmp(f[1], "-") || !strcmp(f[2], "-")) {
			fputs("- - -\n", o);
			continue;
		}
		for (int i = 0; i < 3; i++)
			if (!number(f[i], &v[i])) {
				fprintf(stderr, "occupancy: line %u: '%s' is not a number\n", n, f[i]);
				return 1;
			}
		nv_occupancy_blocks((int)sm, v[0], v[1], v[2], &occ);
		fprintf(o, "%u %u %s\n", occ.blocks, occ.warps, occ.limit);
	}
	if (ferror(stdin) || fclose(o))
		return 1;
	/* all lines good: only now the answer */
	return fwrite(out, 1, len, stdout) != len || fflush(stdout) ? 1 : 0;
}
