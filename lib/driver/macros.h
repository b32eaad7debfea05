#ifndef NV_DRIVER_MACROS_H
#define NV_DRIVER_MACROS_H
/*
 * macros: nvcc's predefined macros, as the -D (and -U) arguments of the
 * compiler of each pass, with nvcc's values from the options and the CUDA
 * installation.
 */
#include "../base/util.h"

/* The compiles nvcc defines its macros for: the device pass, the host pass
 * of a .cu file (clang's CUDA host mode), a host-only source (the host
 * compiler). */
enum nv_drv_pass { NV_PASS_DEVICE = 1, NV_PASS_HOST = 2, NV_PASS_HOST_ONLY = 4 };
/* nvcc's predefined macros for pass, appended to av. */
void nv_drv_macros(struct nv_strv *av, enum nv_drv_pass pass);

#endif
