# nvcc-lite.cmake: CMake's initial cache for a CUDA project built with
# nvcc-lite as its CUDA compiler:
#
#   cmake -C /usr/local/share/nvcc-lite/nvcc-lite.cmake -S . -B build
#
# CMake tells nvcc from clang by compiling a probe and looking for __NVCC__
# in the probe's host pass.  nvcc-lite's host pass is clang-22's, which must
# not define __NVCC__ (CCCL's headers would take clang for nvcc and break),
# so CMake would call nvcc-lite "Clang" and give it clang's flags.  Here the
# compiler is named NVIDIA's kind, of the installed CUDA's version, and
# forced: CMake then uses nvcc's command lines, which nvcc-lite takes
# (-forward-unknown-to-host-compiler, --generate-code, -x cu -c, -MD -MT
# -MF, -rdc=true, -dlink, --options-file), and links with g++ and cudart.

get_filename_component(_nvcc_lite_share "${CMAKE_CURRENT_LIST_DIR}" DIRECTORY)
get_filename_component(_nvcc_lite_prefix "${_nvcc_lite_share}" DIRECTORY)
set(CMAKE_CUDA_COMPILER "${_nvcc_lite_prefix}/bin/nvcc-lite" CACHE FILEPATH "the CUDA compiler: nvcc-lite")

set(_nvcc_lite_cuda "$ENV{CUDA_PATH}")
if(NOT _nvcc_lite_cuda)
  set(_nvcc_lite_cuda /usr/local/cuda)
endif()
if(NOT EXISTS "${_nvcc_lite_cuda}/include/cuda.h")
  message(FATAL_ERROR "nvcc-lite.cmake: no CUDA installation in ${_nvcc_lite_cuda} (set CUDA_PATH)")
endif()
file(STRINGS "${_nvcc_lite_cuda}/include/cuda.h" _nvcc_lite_v REGEX "^#define CUDA_VERSION [0-9]+")
string(REGEX REPLACE ".* ([0-9]+).*" "\\1" _nvcc_lite_v "${_nvcc_lite_v}")
math(EXPR _nvcc_lite_major "${_nvcc_lite_v} / 1000")
math(EXPR _nvcc_lite_minor "(${_nvcc_lite_v} % 1000) / 10")

set(CMAKE_CUDA_COMPILER_FORCED ON CACHE BOOL "nvcc-lite: CMake's compiler identification is skipped")
set(CMAKE_CUDA_COMPILER_ID NVIDIA CACHE STRING "nvcc-lite takes nvcc's command lines")
set(CMAKE_CUDA_COMPILER_VERSION "${_nvcc_lite_major}.${_nvcc_lite_minor}" CACHE STRING "the CUDA nvcc-lite compiles against")
