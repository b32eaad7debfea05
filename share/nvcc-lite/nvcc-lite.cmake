# nvcc-lite.cmake: an initial cache that names nvcc-lite as a project's
# CUDA compiler,
#
#   cmake -C /usr/local/share/nvcc-lite/nvcc-lite.cmake -S . -B build
#
# the same as -DCMAKE_CUDA_COMPILER=/usr/local/bin/nvcc-lite, which is all
# CMake needs: it identifies nvcc-lite as NVIDIA's kind from --version and
# its identification probe, reads the CUDA toolkit, its include and library
# directories and the default architecture from -v, and then gives it nvcc's
# command lines.  Nothing is forced.

get_filename_component(_nvcc_lite_share "${CMAKE_CURRENT_LIST_DIR}" DIRECTORY)
get_filename_component(_nvcc_lite_prefix "${_nvcc_lite_share}" DIRECTORY)
set(CMAKE_CUDA_COMPILER "${_nvcc_lite_prefix}/bin/nvcc-lite" CACHE FILEPATH "the CUDA compiler: nvcc-lite")
