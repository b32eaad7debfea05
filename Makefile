# nvcc-lite: GNU make.  `make` builds bin/ and lib/libnv.a; `make demo` and
# `make check` first install what a fresh machine lacks (share/deps.sh).
.SUFFIXES:

LLVM_CONFIG ?= llvm-config-22
PREFIX ?= /usr/local
DESTDIR ?=
VERSION = 0.1.0
CC ?= cc
CFLAGS ?= -O2 -g

# Evaluated when a recipe runs, so `make deps` can install llvm-config first.
LLVM_CPPFLAGS = $(shell $(LLVM_CONFIG) --cppflags)
LLVM_BINDIR = $(shell $(LLVM_CONFIG) --bindir)
LLVM_LIBDIR = $(shell $(LLVM_CONFIG) --libdir)
LLVM_LIBS = -L$(LLVM_LIBDIR) -Wl,-rpath,$(LLVM_LIBDIR) $(shell $(LLVM_CONFIG) --libs) $(shell $(LLVM_CONFIG) --system-libs)

ifeq ($(SAN),1)
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# A sanitizer report must fail the test that caused it, whatever it expects.
export ASAN_OPTIONS = exitcode=99:detect_leaks=0
export UBSAN_OPTIONS = halt_on_error=1:exitcode=99:print_stacktrace=1
endif

NV_CFLAGS = -std=c17 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -D_GNU_SOURCE -Ilib \
	-DNV_VERSION='"$(VERSION)"' -DNV_LLVM_BINDIR='"$(LLVM_BINDIR)"' \
	$(LLVM_CPPFLAGS) $(SANFLAGS) -MMD -MP

# libnv in layers, each a folder that includes only those before it here
# (lib/README.md; t/0012-layers.bats holds every file to it).
LAYERS = base ir stages driver
LIB_SRC = $(sort $(foreach l,$(LAYERS),$(wildcard lib/$(l)/*.c)))
LIB_OBJ = $(LIB_SRC:.c=.o)
CMD_SRC = $(sort $(wildcard cmd/*.c))
CMD_OBJ = $(CMD_SRC:.c=.o)
PROGS = $(patsubst cmd/%.c,bin/%,$(CMD_SRC))
HEADERS = $(foreach l,$(LAYERS),$(wildcard lib/$(l)/*.h lib/$(l)/*.def))
MAN = $(wildcard share/man/man1/*.1)

# LINK=static (the default): every program is one binary, bin/nvcc-lite, on
# LLVM's static libraries, and bin/nv-* are links to it that run the program
# their name says (cmd/multicall/main.c): a process starts in a third of the
# time libLLVM.so takes to load.  LINK=shared: a binary per program on
# libLLVM.so; SAN=1 builds so.
LINK ?= static
ifeq ($(SAN),1)
LINK = shared
endif
LLVM_COMPONENTS = nvptx bitwriter bitreader irreader passes linker transformutils analysis target core support
LLVM_STATIC_LIBS = $(shell $(LLVM_CONFIG) --link-static --ldflags) \
	$(shell $(LLVM_CONFIG) --link-static --libs $(LLVM_COMPONENTS)) \
	-lstdc++ -lrt -ldl -lm -lpthread -l:libz.so.1 -l:libzstd.so.1
MC_OBJ = $(CMD_SRC:.c=.mc.o)

all: $(PROGS) lib/libnv.a

$(LIB_OBJ) $(CMD_OBJ): lib/.build-flags | toolcheck

# Rebuild everything when the compiler or its flags change (SAN=1 and back).
lib/.build-flags: FORCE
	@echo '$(CC) $(CFLAGS) $(SANFLAGS) $(LLVM_CONFIG) $(LINK)' | cmp -s - $@ || \
	    echo '$(CC) $(CFLAGS) $(SANFLAGS) $(LLVM_CONFIG) $(LINK)' >$@

lib/%.o: lib/%.c
	$(CC) $(NV_CFLAGS) $(CFLAGS) -c $< -o $@

cmd/%.o: cmd/%.c
	$(CC) $(NV_CFLAGS) $(CFLAGS) -c $< -o $@

lib/libnv.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $(LIB_OBJ)

ifeq ($(LINK),static)
$(MC_OBJ): lib/.build-flags | toolcheck

cmd/%.mc.o: cmd/%.c
	$(CC) $(NV_CFLAGS) $(CFLAGS) -Dmain=nv_main_$(subst -,_,$*) -c $< -o $@

# NV_PROGRAM(FN, "NAME") for each cmd/*.c: the programs the binary holds.
cmd/multicall/programs.def: Makefile $(CMD_SRC)
	for p in $(patsubst cmd/%.c,%,$(CMD_SRC)); do \
		echo "NV_PROGRAM(nv_main_$$(echo $$p | tr - _), \"$$p\")"; \
	done >$@.tmp && mv $@.tmp $@

cmd/multicall/main.o: cmd/multicall/main.c cmd/multicall/programs.def lib/.build-flags
	$(CC) $(NV_CFLAGS) $(CFLAGS) -Icmd/multicall -c $< -o $@

bin/nvcc-lite: $(MC_OBJ) cmd/multicall/main.o lib/libnv.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) $(MC_OBJ) cmd/multicall/main.o lib/libnv.a $(LLVM_STATIC_LIBS) -o $@

bin/nv-%: bin/nvcc-lite
	ln -sf nvcc-lite $@
else
bin/%: cmd/%.o lib/libnv.a
	@mkdir -p bin
	@rm -f $@ # a link left by LINK=static: the linker would write through it
	$(CC) $(SANFLAGS) $(LDFLAGS) $< lib/libnv.a $(LLVM_LIBS) -o $@
endif

# libnv.pc names the prefix: remade when `make install PREFIX=X` changes it.
lib/.pc-flags: FORCE
	@echo '$(PREFIX) $(VERSION)' | cmp -s - $@ || echo '$(PREFIX) $(VERSION)' >$@

lib/libnv.pc: share/libnv.pc.in Makefile lib/.build-flags lib/.pc-flags
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@LLVM_CPPFLAGS@|$(LLVM_CPPFLAGS)|' -e 's|@LLVM_LIBS@|$(LLVM_LIBS) $(SANFLAGS)|' $< > $@

# What a program linking lib/libnv.a in the tree needs (tests use it).
print-ldflags:
	@echo '$(SANFLAGS) $(LLVM_LIBS)'

# Fails with the list of missing packages; installs nothing.
toolcheck:
	@sh share/deps.sh --check

# Installs what is missing (apt-get as root; otherwise names the packages).
deps:
	@sh share/deps.sh --install

demo: deps
	@$(MAKE) --no-print-directory all
	@sh share/examples/demo.sh

# The suite in two tiers (t/run.sh): `make check` the fast one, `make
# check-slow` the sweeps and probe batteries, `make check-all` both; as
# many tests at once as make's -j says (-j1: one at a time), else the CPUs.
TEST_JOBS = $(or $(patsubst -j%,%,$(filter -j%,$(MAKEFLAGS))),$(shell nproc 2>/dev/null || echo 1))

check: deps
	@$(MAKE) --no-print-directory all
	sh t/run.sh -t fast -j $(TEST_JOBS)

check-slow: deps
	@$(MAKE) --no-print-directory all
	sh t/run.sh -t slow -j $(TEST_JOBS)

check-all: deps
	@$(MAKE) --no-print-directory all
	sh t/run.sh -t all -j $(TEST_JOBS)

# libFuzzer over textual IR (t/fuzz/): FUZZ_STAGE's library entry (reflect
# with every analysis, inline, unroll, vectorize, remat, split) on mutated
# modules.  The library is compiled into it with coverage; FUZZ_TIME
# seconds per run.
FUZZ_CC = $(LLVM_BINDIR)/clang
FUZZ_TIME ?= 60
FUZZ_STAGE ?= reflect
bin/fuzz-ir: t/fuzz/fuzz-ir.c $(LIB_SRC) $(HEADERS) | toolcheck
	@mkdir -p bin
	$(FUZZ_CC) -std=c17 -g -O1 -D_GNU_SOURCE -Ilib -DNV_VERSION='"$(VERSION)"' $(LLVM_CPPFLAGS) \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	    t/fuzz/fuzz-ir.c $(LIB_SRC) $(LLVM_LIBS) -o $@

fuzz: bin/fuzz-ir
	NV_FUZZ_STAGE=$(FUZZ_STAGE) sh t/fuzz/run.sh $(FUZZ_TIME)

# The benchmark (bench/README.md): nvcc-lite against nvcc and clang-22 on
# bench/kernels/*.cu; BENCH_RUNS compiles per kernel and compiler.
bench: all
	sh bench/run.sh

# Phase II in parallel: every kernel in one file at -split-compile=1 and =2.
bench-split: all
	sh bench/split.sh

# The real-world corpus (bench/corpus.sh): every .cu under CORPUS through
# nvcc -ptx and nvcc-lite; CORPUS_OPTS for its options (-j 2, -k REGEX).
CORPUS ?=
CORPUS_OPTS ?=
corpus:
	@if [ -z "$(CORPUS)" ]; then \
		echo 'corpus: skipped: no corpus (make corpus CORPUS="DIR..."; see bench/README.md)'; \
	elif ! command -v nvcc >/dev/null 2>&1 && [ ! -x "$${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" ]; then \
		echo 'corpus: skipped: nvcc is not installed'; \
	else \
		$(MAKE) --no-print-directory all && sh bench/corpus.sh $(CORPUS_OPTS) $(CORPUS); \
	fi

# Phase II must never lose a kernel: every bench kernel, fixture and
# SWEEP_STRESS llvm-stress modules split and joined for N = 1..SWEEP_N, the
# joined module and the PTX compared with N=1's (t/split-sweep.sh).
SWEEP_N = 8
SWEEP_STRESS = 20
split-sweep: all
	sh t/split-sweep.sh -n $(SWEEP_N) -s $(SWEEP_STRESS)

# The same kernels on a GPU, nvcc-lite's against nvcc's: outputs and times.
# Without a CUDA driver or a GPU it says so and succeeds.
bench/out/bench-gpu: bench/gpu.c
	@mkdir -p bench/out
	$(CC) -std=c17 -Wall -Wextra -O2 -D_GNU_SOURCE $(SANFLAGS) $< -o $@ -ldl -lm

bench-gpu: all bench/out/bench-gpu
	sh bench/run.sh --ptx-only
	bench/out/bench-gpu -d bench/out bench/kernels/*.cu

# Meaning preservation on N seeds from SEED on, J programs at once (t/csmith.sh).
N ?= 100
SEED ?= 1
J ?= 2
csmith: all
	bash t/csmith.sh -n $(N) -s $(SEED) -j $(J)

install: all lib/libnv.pc
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(foreach l,$(LAYERS),$(DESTDIR)$(PREFIX)/include/nv/$(l)) $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/nvcc-lite \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	    $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	cp -P $(PROGS) $(DESTDIR)$(PREFIX)/bin/
	cp lib/libnv.a $(DESTDIR)$(PREFIX)/lib/
	cp lib/libnv.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	$(foreach l,$(LAYERS),cp $(filter lib/$(l)/%,$(HEADERS)) $(DESTDIR)$(PREFIX)/include/nv/$(l)/ &&) true
	cp $(MAN) $(DESTDIR)$(PREFIX)/share/man/man1/
	cp share/nvcc-lite/cuda_shim.h share/nvcc-lite/nvcc_compat.h share/nvcc-lite/pch-probe.h share/nvcc-lite/nvcc-lite.cmake share/nvcc-lite.mk \
	    $(DESTDIR)$(PREFIX)/share/nvcc-lite/
	cp completions/nvcc-lite.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/nvcc-lite
	cp completions/_nvcc-lite $(DESTDIR)$(PREFIX)/share/zsh/site-functions/

clean:
	rm -rf bin/nv-* bin/nvcc-lite bin/fuzz-ir lib/*/*.o lib/*/*.d cmd/*.o cmd/*.d cmd/multicall/*.o \
	    cmd/multicall/*.d cmd/multicall/programs.def lib/libnv.a lib/libnv.pc lib/.build-flags lib/.pc-flags bench/out

.PHONY: all toolcheck deps demo check check-slow check-all bench bench-split split-sweep bench-gpu corpus csmith fuzz install clean print-ldflags FORCE

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(MC_OBJ:.o=.d) cmd/multicall/main.d
