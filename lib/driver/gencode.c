/*
 * gencode: nvcc's target flags, read as nvcc reads them (nvcc --help, "GPU
 * Compilation" in nvcc's manual): -gencode arch=V,code=C is one virtual
 * architecture V and the codes C made from its PTX; -arch=sm_XX alone is
 * -gencode arch=compute_XX,code=[sm_XX,compute_XX]; -arch=compute_XX alone
 * embeds only its PTX; -arch with -code takes the codes given.
 */
#include "gencode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/diag.h"
#include "../base/util.h"
#include "../stages/target.h"

static struct nv_gencode *
find_virt(struct nv_gencodes *g, const char *virt)
{
	struct nv_gencode *t;

	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].virt, virt))
			return &g->v[i];
	g->v = xrealloc(g->v, (g->n + 1) * sizeof(*g->v));
	t = &g->v[g->n++];
	memset(t, 0, sizeof(*t));
	snprintf(t->virt, sizeof(t->virt), "%s", virt);
	snprintf(t->gpu, sizeof(t->gpu), "sm_%s", virt + 8);
	return t;
}

/* "sm_90" -> "compute_90", and back; NULL when name is neither a GPU nor
 * a virtual architecture nvcc-lite knows. */
static const char *
virt_of(const char *name, char *buf, size_t len)
{
	const char *num = !strncmp(name, "sm_", 3) ? name + 3 : !strncmp(name, "compute_", 8) ? name + 8 : NULL;

	if (!num || !nv_target_arch(name))
		return NULL;
	snprintf(buf, len, "compute_%s", num);
	return buf;
}

/* One code of virtual architecture virt: its PTX (compute_XX, the same) or
 * a GPU no older than it, of the same arch-specific kind. */
static void
add_code(struct nv_gencodes *g, const char *what, const char *virt, const char *code)
{
	const struct nv_arch *va = nv_target_arch(virt), *ca = nv_target_arch(code);
	struct nv_gencode *t;
	char vb[24];

	if (!ca || !virt_of(code, vb, sizeof(vb)))
		nv_usage_error("%s: unknown GPU code '%s'; did you mean '%s'?", what, code,
		               nv_target_suggest(code));
	if (!strncmp(code, "compute_", 8)) {
		if (strcmp(code, virt))
			nv_usage_error("%s: code '%s' is not the PTX of arch '%s'", what, code, virt);
		find_virt(g, virt)->ptx = 1;
		return;
	}
	if (ca->sm < va->sm)
		nv_usage_error("%s: GPU '%s' is older than the virtual arch '%s' its code comes from", what,
		               code, virt);
	if (virt[strlen(virt) - 1] == 'a' && strcmp(code + 3, virt + 8))
		nv_usage_error("%s: the arch-specific '%s' makes code for sm_%s only", what, virt, virt + 8);
	t = find_virt(g, virt);
	for (size_t i = 0; i < t->nreal; i++)
		if (!strcmp(t->real[i], code))
			return;
	if (t->nreal == NV_GENCODE_MAX_REAL)
		nv_usage_error("%s: more than %d GPUs for '%s'", what, NV_GENCODE_MAX_REAL, virt);
	snprintf(t->real[t->nreal++], sizeof(t->real[0]), "%s", code);
}

/* Each code of a comma list, with or without nvcc's brackets. */
static void
add_codes(struct nv_gencodes *g, const char *what, const char *virt, const char *codes)
{
	size_t n = strlen(codes);
	char *list, *save = NULL;

	if (n >= 2 && codes[0] == '[' && codes[n - 1] == ']')
		list = xasprintf("%.*s", (int)(n - 2), codes + 1);
	else
		list = xstrdup(codes);
	if (!*list || strchr(list, '[') || strchr(list, ']'))
		nv_usage_error("%s: expected code=sm_XX, code=compute_XX or code=[sm_XX,compute_XX]", what);
	for (char *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save))
		add_code(g, what, virt, c);
	free(list);
}

void
nv_gencode_add_spec(struct nv_gencodes *g, const char *spec)
{
	char *what = xasprintf("-gencode '%s'", spec), *arch;
	const char *code = strstr(spec, ",code=");
	char vb[24];

	if (strncmp(spec, "arch=", 5) || !code)
		nv_usage_error("%s: expected arch=compute_XX,code=sm_XX (or code=[sm_XX,compute_XX])", what);
	arch = xasprintf("%.*s", (int)(code - spec - 5), spec + 5);
	if (strncmp(arch, "compute_", 8) || !virt_of(arch, vb, sizeof(vb)))
		nv_usage_error("%s: arch must be a virtual architecture compute_XX, not '%s'", what, arch);
	add_codes(g, what, arch, code + 6);
	free(arch);
	free(what);
}

/* -arch=all and -arch=all-major: the GPUs nvcc lists for them (no
 * arch-specific ones; all-major the oldest and every XX0), the newest one's
 * PTX besides. */
static void
add_all(struct nv_gencodes *g, int major)
{
	char *list = xstrdup(nv_target_arch_list()), *save = NULL, vb[24];
	int first = 1;

	for (char *a = strtok_r(list, " ", &save); a; a = strtok_r(NULL, " ", &save)) {
		const struct nv_arch *t = nv_target_arch(a);
		char last = a[strlen(a) - 1];

		if (last == 'a' || last == 'f' || (major && !first && t->sm % 10))
			continue;
		first = 0;
		add_code(g, "-arch", virt_of(a, vb, sizeof(vb)), a);
	}
	if (g->n)
		g->v[g->n - 1].ptx = 1;
	free(list);
}

void
nv_gencode_add_arch(struct nv_gencodes *g, const char *arch, const char *codes)
{
	char vb[24];
	const char *virt;

	if (!strcmp(arch, "all") || !strcmp(arch, "all-major")) {
		if (codes)
			nv_usage_error("-arch=%s takes no -code", arch);
		add_all(g, !strcmp(arch, "all-major"));
		return;
	}
	virt = virt_of(arch, vb, sizeof(vb));
	if (!virt)
		nv_target_arch_or_die(arch);
	if (codes) {
		add_codes(g, "-code", virt, codes);
	} else {
		if (!strncmp(arch, "sm_", 3))
			add_code(g, "-arch", virt, arch);
		add_code(g, "-arch", virt, virt);
	}
}

size_t
nv_gencode_nreal(const struct nv_gencodes *g)
{
	size_t n = 0;

	for (size_t i = 0; i < g->n; i++)
		n += g->v[i].nreal;
	return n;
}

void
nv_gencode_release(struct nv_gencodes *g)
{
	free(g->v);
	g->v = NULL;
	g->n = 0;
}
