# nvcc-lite.mk: CUDA device code to PTX (or cubins) with nvcc-lite, from GNU make.
#
#     NVCC_LITE_OUT = build                  # optional, before the include
#     include /usr/local/share/nvcc-lite/nvcc-lite.mk
#     PTX := $(call nvcc-lite-ptx,$(wildcard *.cu))
#     all: $(PTX)
#     -include $(PTX:.ptx=.d)
#
# Rules: [OUT/]%.ptx and [OUT/]%.cubin from %.cu, each also writing [OUT/]%.d
# (nvcc-lite -MMD -MP), so editing a header rebuilds what includes it and
# deleting one breaks nothing.
#
# The compile line starts with '+', as nvcc's manual asks for -jobserver:
# make then hands its jobserver to nvcc-lite under `make -jN`, and a driver
# that takes jobs from it keeps the whole build within N.  (An nvcc-lite that
# ignores MAKEFLAGS runs one job per file, which make already counts.)  The
# price of '+': `make -n` runs these lines too, as it runs $(MAKE) lines.
#
# Variables (all may be set on the command line):
#   NVCC_LITE        the driver                       (default nvcc-lite)
#   NVCC_LITE_ARCH   GPU                              (default sm_90)
#   NVCC_LITE_FLAGS  more flags: -O2, -lineinfo, -Xcicc -KNOB=V, -save-remarks DIR
#   NVCC_LITE_OUT    directory for .ptx/.cubin/.d     (default: beside the source;
#                    read when the rules are, so set it before the include)

NVCC_LITE ?= nvcc-lite
NVCC_LITE_ARCH ?= sm_90
NVCC_LITE_FLAGS ?= -O3
NVCC_LITE_OUT ?=

nvcc-lite-dir = $(if $(NVCC_LITE_OUT),$(NVCC_LITE_OUT:%/=%)/)
# $(call nvcc-lite-ptx,a.cu src/b.cu) -> OUT/a.ptx OUT/src/b.ptx
nvcc-lite-ptx = $(patsubst %.cu,$(nvcc-lite-dir)%.ptx,$(1))
nvcc-lite-cubin = $(patsubst %.cu,$(nvcc-lite-dir)%.cubin,$(1))

$(nvcc-lite-dir)%.ptx: %.cu
	@mkdir -p $(@D)
	+$(NVCC_LITE) -arch=$(NVCC_LITE_ARCH) $(NVCC_LITE_FLAGS) -MMD -MP -ptx $< -o $@

$(nvcc-lite-dir)%.cubin: %.cu
	@mkdir -p $(@D)
	+$(NVCC_LITE) -arch=$(NVCC_LITE_ARCH) $(NVCC_LITE_FLAGS) -MMD -MP -cubin $< -o $@
