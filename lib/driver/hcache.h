#ifndef NV_DRIVER_HCACHE_H
#define NV_DRIVER_HCACHE_H
/*
 * hcache: the front end's header cache as the plan runs (pch.h keeps the
 * entries; this finds, builds and uses them for a compile the plan keyed
 * with nv_drv_fe_cache).  Nothing here fails a build: without the cache it
 * is only slower.
 */
#include <stddef.h>

#include "../base/util.h"
#include "job.h"
#include "pch.h"

/* The header cache's entry for the compile c keys (src for arch), or for
 * src's preamble under it (from its second compile): its precompiled
 * header when fresh, else built now (its diagnostics in err, from
 * nv_drv_diags_new; the files it writes added to paths) unless another
 * compile builds it or -dryrun (err 0); NULL
 * when there is none (c NULL: the compile goes without the cache).  The
 * entry is in *pch. */
const char *nv_drv_header_cache(const struct nv_fe_cache *c, const char *src, const char *arch,
                                struct nv_pch *pch, int err, struct nv_strv *paths);
/* The flags that compile through the header cache's entry pch. */
void nv_drv_use_pch(struct nv_strv *av, const struct nv_pch *pch);
/* A copy of the command argv with pch's flags before argv[at]. */
char **nv_drv_with_pch(char **argv, size_t at, const struct nv_pch *pch);

#endif
