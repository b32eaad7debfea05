// llm.c calls cudaMemAdvise(ptr, bytes, advice, device), which CUDA 13 took
// away (its last parameter is a cudaMemLocation now): that one overload
// back, so that nvcc 13 compiles train_gpt2.cu and the others (host code,
// but nvcc -ptx reads it).  Given with -include by llm.c.flags.
#include <cuda_runtime.h>
#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000
static inline cudaError_t cudaMemAdvise(const void *ptr, size_t bytes, enum cudaMemoryAdvise advice, int device)
{
	struct cudaMemLocation where;
	where.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
	where.id = device;
	return cudaMemAdvise(ptr, bytes, advice, where);
}
#endif
