# segbench - plain Make.
#
#   make            build everything this machine can build
#   make test       build and run the CPU test suite (what CI runs)
#   make exercise ALGO=integral RUNG=cuda-transposed   a lesson as a student's stub (exercises/);
#                   make grade ALGO=... RUNG=... grades it (docs/course.md)
#   make check-layers  every include and every symbol of bench/ points down its layer order (bench/README.md)
#   make check-size    no function in bench/ over 100 lines
#   make check-statics no mutable file-level state in bench/ outside main and its named exceptions
#   make check-copies  no new copy between the CUDA ladders' files (impl_cuda/COPIES.txt may only shrink)
#   make test-asan  the CPU suite under AddressSanitizer + UBSan (build-asan/)
#   make fuzz       libFuzzer on the image, PNM, y4m, manifest, results and env.json readers (FUZZ_SECONDS each)
#   make test-gpu   CUDA agreement tests plus compute-sanitizer (needs a GPU);
#                   test-gpu-agreement, -memcheck, -racecheck (= -racecheck-1,
#                   -2, -3, -4 and -5), -synccheck, -initcheck run one step each
#   make test-course-gpu ALGOS="integral kmeans"   every lesson's stub fails the
#                   grader and its reference solution passes (needs a GPU)
#   make bench      build, generate the dataset, check and time every variant,
#                   write results/<machine>/ and report/<machine>/REPORT.md;
#                   RECORD=1: the run of record's protocol (longer: docs/measuring.md)
#   make report     regenerate report/<machine>/ from results/<machine>/ (history.md from git), and make docs
#   make docs       the figures of README.md and docs/ written from the results (segbench docs)
#   make compare A=integral/cuda-pdl B=integral/cuda-texture
#   make bench-cli  whole `segbench run` processes under hyperfine (results/<machine>/cli.json)
#   make profile    ncu over every CUDA rung after make bench (results/<machine>/<algo>.profile.csv);
#                   ALGO=integral RUNG=cuda-transposed: that edge, parent and rung side by side
#   make peers      OpenCV, scikit-image, CuPy, PyTorch on the same images (optional; results/<machine>/peers.csv)
#   make bench-slurm PARTITIONS=a100,h100   one job per GPU type on a Slurm cluster, one report
#   make test-slurm the same on a one-node Slurm cluster of this machine (root)
#   make test-slurm-gpus  a task per GPU of one host, a result set each, at once (two stand-in GPUs; root)
#
# Options: SET=smoke|default|record|full (dataset; RECORD=1: record), BUDGET=ms
# per row (50; RECORD=1: 100), STREAM_S=s per stream row (0.5; RECORD=1: 1),
# HOST_LIMIT=s a CPU row's one run at most (0.5; RECORD=1: 0, none), BENCH_FLAGS=..., CUDA_ARCH="80 90" (GPU targets; default: the GPU this
# machine has, else none; CUDA_ARCH=all: every architecture from Turing to
# Hopper), NVCC=path (or NVCC= to build without CUDA), CCACHE= (no ccache),
# V=1 (full compiler command lines; make test: each test's time, the ten slowest).

# Every core unless the command line says -j: the CUDA build for five GPU
# generations takes minutes on one core.
NPROC       := $(shell nproc 2>/dev/null || echo 1)
ifeq ($(filter -j%,$(MAKEFLAGS)),)
  MAKEFLAGS += -j$(NPROC)
endif

# make bench measures each row for up to BUDGET ms (it stops sooner once
# the median is known to 0.5 %) and each stream row for half a second, on
# the default set; RECORD=1 is the run of record's protocol: twice that on
# every row, a second a stream row (long enough to read the energy
# counters), on the record set's eight photos (docs/measuring.md).
# make bench also leaves to the run of record the CPU rows one run of which
# would take over HOST_LIMIT seconds (threaded rows at the largest sizes:
# bench --host-limit); RECORD=1 measures every one.
RECORD      ?=
SET         ?= $(if $(filter 1,$(RECORD)),record,default)
BUDGET      ?= $(if $(filter 1,$(RECORD)),100,50)
STREAM_S    ?= $(if $(filter 1,$(RECORD)),1,0.5)
HOST_LIMIT  ?= $(if $(filter 1,$(RECORD)),0,0.5)
BENCH_FLAGS ?=

CC          ?= cc
# ccache, where installed, in front of every compile (CCACHE= turns it off).
ifeq ($(origin CCACHE),undefined)
  CCACHE    := $(shell command -v ccache 2>/dev/null)
endif
NVCC        ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_HOME   ?= $(patsubst %/bin/nvcc,%,$(NVCC))

BUILD       := build
comma       := ,
V           ?= 0
Q           := $(if $(filter 1,$(V)),,@)
# The project's flags; yours (make CFLAGS=... LDFLAGS=... NVCCFLAGS=..., or
# the environment) are added after them, as Make users expect.
SB_CFLAGS   := -O3 -std=c11 -Wall -Wextra -D_XOPEN_SOURCE=700 -ffp-contract=off -Iinclude -MMD -MP
ALL_CFLAGS   = $(SB_CFLAGS) $(CFLAGS)
PNG_CFLAGS  := $(shell pkg-config --cflags libpng 2>/dev/null)
PNG_LIBS    := $(shell pkg-config --libs libpng 2>/dev/null || echo -lpng) -lz
LDLIBS      := $(PNG_LIBS) -lpthread -lm
OPENMP      := $(shell echo 'int main(void){return 0;}' | $(CC) -fopenmp -x c - -o /dev/null 2>/dev/null && echo -fopenmp)

# ---- sources -----------------------------------------------------------------
COMMON_SRC  := $(wildcard common/*.c)
CPU_SRC     := $(wildcard impl_cpu/*.c) $(filter-out %_openmp.c,$(wildcard impl_pthread/*.c))
OMP_SRC     := $(if $(OPENMP),$(wildcard impl_pthread/*_openmp.c))
# Students' copies of rungs (make exercise): built, and registered as
# student-<rung>, only when exercises/ holds them.
EXERCISE_CU := $(wildcard exercises/*/*.cu)
EXERCISE_OMP := $(if $(OPENMP),$(wildcard exercises/*/*_openmp.c))
EXERCISE_PTHREAD := $(wildcard exercises/*/*_pthread.c)
BENCH_SRC   := $(filter-out bench/cli/main.c,$(wildcard bench/*/*.c))
TEST_SRC    := $(filter-out tests/test_gpu.c tests/fuzz/%,$(wildcard tests/*.c tests/*/*.c))

# GPU targets.  CUDA_ARCH="80 90" on the command line wins; CUDA_ARCH=all
# is machine code for every architecture from Turing to Hopper that this
# nvcc knows; CUDA_ARCH=none builds no device code.  Otherwise the compute
# capability of the GPU this machine has (what -arch=native picks), and
# where there is no GPU, none: a machine that cannot run device code does
# not wait minutes for it (CI proves it compiles with CUDA_ARCH=all).  The
# newest target also gets PTX, which the driver compiles for newer GPUs.
# Each set of targets keeps its objects in a folder of its own
# (build/cuda-90/, build/cuda-75-80-86-89-90/), so switching between them
# relinks and never recompiles.
CUDA_ALL    := 75 80 86 89 90
ifneq ($(NVCC),)
  ifeq ($(origin CUDA_ARCH),undefined)
    CUDA_ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | \
                   head -n 1 | tr -d '. ' | grep -E '^[0-9]+$$')
    CUDA_ARCH := $(if $(CUDA_ARCH),$(CUDA_ARCH),none)
    CUDA_WHY  := $(if $(filter none,$(CUDA_ARCH)),no GPU at build time: CUDA_ARCH=none; make CUDA_ARCH=all builds them)
  endif
  ifeq ($(strip $(CUDA_ARCH)),all)
    override CUDA_ARCH := $(filter $(patsubst compute_%,%,$(shell $(NVCC) --list-gpu-arch 2>/dev/null)),$(CUDA_ALL))
    override CUDA_ARCH := $(if $(CUDA_ARCH),$(CUDA_ARCH),90)
  endif
  ifeq ($(strip $(CUDA_ARCH)),)
    override CUDA_ARCH := none
  endif
  ifneq ($(strip $(CUDA_ARCH)),none)
    CUDA_PTX  := $(shell echo $(CUDA_ARCH) | tr " " "\n" | sort -n | tail -n 1)
    GENCODE   := $(foreach a,$(CUDA_ARCH),-gencode arch=compute_$(a),code=sm_$(a)) \
                 -gencode arch=compute_$(CUDA_PTX),code=compute_$(CUDA_PTX)
    # An nvcc that cannot compile here (too old for the host compiler, or
    # no host compiler it accepts): one line, and the CPU build goes on.
    CUDA_WHY  := $(shell sh scripts/nvcc_probe.sh "$(NVCC)" "$(BUILD)/gen" $(GENCODE))
    ifneq ($(CUDA_WHY),)
      $(info make: $(CUDA_WHY); building without CUDA (CUDA variants: not built))
      override CUDA_ARCH := none
    endif
  endif
endif
# Why a build has no device code, for segbench list (runtime_stub.c).
NO_CUDA_WHY := $(if $(NVCC),$(or $(CUDA_WHY),CUDA_ARCH=none),nvcc was not found at build time)
ifneq ($(filter-out none,$(CUDA_ARCH)),)
  CUDA_BUILD := $(BUILD)/cuda-$(subst $(eval) ,-,$(strip $(CUDA_ARCH)))
  NPP       := $(wildcard $(CUDA_HOME)/include/nppi.h)
  CUDA_SRC  := $(filter-out impl_cuda/integral/npp.cu,$(wildcard impl_cuda/*.cu impl_cuda/*/*.cu)) \
               $(if $(NPP),impl_cuda/integral/npp.cu) $(EXERCISE_CU)
  SB_NVCCFLAGS := -O3 -std=c++17 -Iinclude $(GENCODE) -Xcompiler -Wall,-Wextra -MMD -MP
  ALL_NVCCFLAGS = $(SB_NVCCFLAGS) $(NVCCFLAGS)
  CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -Wl,--as-needed \
               $(if $(NPP),-lnppist -lnppif -lnppc) -lcudart -lcupti -lstdc++ -Wl,--no-as-needed
  DEVICE_OBJ = $(CUDA_SRC:%.cu=$(CUDA_BUILD)/%.o)
else
  override CUDA_ARCH := none
  DEVICE_OBJ = $(BUILD)/impl_cuda/runtime_stub.o
endif

LIB_OBJ     := $(COMMON_SRC:%.c=$(BUILD)/%.o) $(CPU_SRC:%.c=$(BUILD)/%.o) $(OMP_SRC:%.c=$(BUILD)/%.o) \
               $(EXERCISE_OMP:%.c=$(BUILD)/%.o) $(EXERCISE_PTHREAD:%.c=$(BUILD)/%.o) \
               $(BENCH_SRC:%.c=$(BUILD)/%.o) $(DEVICE_OBJ)
# (A student's kit, segbench exercise --export, has no tests/.)
PROGRAMS    := $(BUILD)/segbench $(BUILD)/sbgen $(if $(wildcard tests/test_main.c),$(BUILD)/test_cpu \
               $(if $(CUDA_BUILD),$(BUILD)/test_gpu))

.PHONY: all check-layers check-size check-statics check-copies exercise grade test test-asan fuzz test-gpu test-course-gpu $(addprefix test-gpu-,$(GPU_STEPS)) bench report docs datasets compare bench-cli profile warm peers bench-slurm test-slurm test-slurm-gpus clean
all: $(PROGRAMS)

# ---- dependencies: libpng is required; gnuplot and hyperfine are optional ----
$(BUILD)/deps.ok:
	@mkdir -p $(BUILD)
	@if ! echo '#include <png.h>' | $(CC) $(PNG_CFLAGS) -E -x c - >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make: libpng headers not found; installing libpng-dev with apt-get (and gnuplot-nox, hyperfine, bubblewrap)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libpng-dev zlib1g-dev || exit 1; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox hyperfine bubblewrap || \
	      echo "make: gnuplot-nox, hyperfine or bubblewrap could not be installed (optional: plots / bench-cli / grading a class)"; \
	  else \
	    echo "make: segbench needs the libpng headers, which are not installed. Install them with:"; \
	    echo "    sudo apt-get install libpng-dev"; \
	    echo "  (optional: sudo apt-get install gnuplot-nox hyperfine bubblewrap, for plots, 'make bench-cli' and grading a class)"; \
	    exit 1; \
	  fi; \
	fi
	@$(if $(NVCC),true,echo "make: note: nvcc not found; building the CPU suite only (CUDA variants: not built)")
	@$(if $(CUDA_BUILD),true,$(if $(NVCC),$(if $(CUDA_WHY),,echo "make: note: CUDA_ARCH=none: no device code (CUDA variants: not built)")))
	@touch $@

# The optional tools: gnuplot (plots), hyperfine (make bench-cli) and
# bubblewrap (bwrap: grade --submissions runs each student's code in its
# sandbox), installed with apt-get where this is root with apt (at most
# two minutes; INSTALL_TOOLS=no skips it), else one line each saying what
# is missing.  Checked again on every make bench.
INSTALL_TOOLS ?= yes
$(BUILD)/tools.ok: FORCE
	@mkdir -p $(BUILD)
	@missing=""; for t in gnuplot hyperfine bwrap; do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ] && [ "$(INSTALL_TOOLS)" = yes ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "make: installing$$missing with apt-get (plots, make bench-cli, grading a class)"; \
	  pkgs=$$(echo "$$missing" | sed 's/gnuplot/gnuplot-nox/; s/bwrap/bubblewrap/'); \
	  { timeout 60 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 60 apt-get install -y -qq $$pkgs; } \
	    >/dev/null 2>&1 || echo "make: apt-get could not install$$missing"; \
	fi; \
	command -v gnuplot >/dev/null 2>&1 || echo "make: note: gnuplot not found (sudo apt-get install gnuplot-nox): reports get their tables, no new plots"; \
	command -v hyperfine >/dev/null 2>&1 || echo "make: note: hyperfine not found (sudo apt-get install hyperfine): make bench-cli is skipped"; \
	command -v bwrap >/dev/null 2>&1 || echo "make: note: bubblewrap not found (sudo apt-get install bubblewrap): grade --submissions needs it, or --no-sandbox"; \
	touch $@

# ---- compiler and flag record for env.json and --version (rewritten only when it changes) ----
# The commit is built into the binary: results name the code that ran, not
# whatever the current directory holds when it runs.  A tree that travelled
# without .git names its commit in SB_GIT_COMMIT (and SB_GIT_DIRTY=1).
ifneq ($(SB_GIT_COMMIT),)
BUILD_COMMIT := $(SB_GIT_COMMIT)$(if $(filter 1,$(SB_GIT_DIRTY)),-dirty)
else
BUILD_COMMIT := $(or $(shell git rev-parse HEAD 2>/dev/null),unknown)$(shell \
                  git rev-parse HEAD >/dev/null 2>&1 && { git diff --quiet HEAD -- 2>/dev/null || echo -dirty; })
endif
$(BUILD)/gen/buildinfo.h: FORCE
	@mkdir -p $(dir $@)
	@{ echo '#define SB_BUILD_CC_VERSION "$(shell $(CC) --version 2>/dev/null | head -1 | tr -d '"\\')"'; \
	   echo '#define SB_BUILD_CFLAGS "$(ALL_CFLAGS) $(OPENMP)"'; \
	   echo '#define SB_BUILD_NVCC_VERSION "$(if $(NVCC),$(shell $(NVCC) --version 2>/dev/null | tail -1 | tr -d '"\\'),none)"'; \
	   echo '#define SB_BUILD_NVCCFLAGS "$(ALL_NVCCFLAGS)"'; \
	   echo '#define SB_BUILD_CUDA_ARCHS "$(CUDA_ARCH)"'; \
	   echo '#define SB_BUILD_NO_CUDA_WHY "$(subst ",,$(subst ',,$(subst \,,$(NO_CUDA_WHY))))"'; \
	   echo '#define SB_BUILD_COMMIT "$(BUILD_COMMIT)"'; } > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

# Objects depend on the flags they were compiled with, so new flags (or a
# new CUDA_ARCH) rebuild them.
$(BUILD)/gen/cflags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(ALL_CFLAGS) $(LDFLAGS)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(CUDA_BUILD)/nvccflags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(NVCC) $(ALL_NVCCFLAGS)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
# What the programs are linked from: a new set of GPU targets (or none)
# relinks them, even where every object is older than the last link.
$(BUILD)/gen/link: FORCE
	@mkdir -p $(dir $@)
	@echo '$(DEVICE_OBJ) $(CUDA_LIBS) $(LDFLAGS)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# ---- compile ----------------------------------------------------------------
# The CPU variants' shared internals, impl_cpu/<algo>_host.h, are reached as
# "<algo>_host.h" by impl_pthread/ and the tests on this path, and by no one
# else: bench/ and impl_cuda/ see only include/segbench/.
# (A variable of its own: were it added to ALL_CFLAGS here, gen/cflags,
# which these objects depend on, would see it or not depending on which
# object asked first, and every build would start from scratch.)
# The harness's headers are reached by their job's folder ("cases/cases.h",
# "io/rows.h": bench/README.md), by bench/ and the tests alone.
$(BUILD)/impl_pthread/%.o: HOST_INC := -Iimpl_cpu
$(BUILD)/exercises/%.o: HOST_INC := -Iimpl_cpu
# (The tests' tables leave sb_test's last field, `alone`, out where it is 0.)
$(BUILD)/tests/%.o: HOST_INC := -Iimpl_cpu -Iimpl_pthread -Ibench -Itests -Wno-missing-field-initializers
$(BUILD)/bench/%.o: HOST_INC := -Ibench
# NVTX ranges (trace.h) where the CUDA toolkit has NVTX 3's headers.
NVTX_INC    := $(if $(wildcard $(CUDA_HOME)/include/nvtx3/nvToolsExt.h),-DSB_HAVE_NVTX -I$(CUDA_HOME)/include)
$(BUILD)/common/trace.o: HOST_INC := $(NVTX_INC)

$(BUILD)/%.o: %.c $(BUILD)/deps.ok $(BUILD)/gen/cflags
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CCACHE) $(CC) $(ALL_CFLAGS) $(HOST_INC) $(PNG_CFLAGS) -c $< -o $@

$(BUILD)/impl_pthread/%_openmp.o: impl_pthread/%_openmp.c $(BUILD)/deps.ok $(BUILD)/gen/cflags
	@mkdir -p $(dir $@)
	@echo "  CC    $< (OpenMP)"
	$(Q)$(CCACHE) $(CC) $(ALL_CFLAGS) $(HOST_INC) $(OPENMP) -c $< -o $@
# placement.c pins OpenMP's team too, where the compiler has OpenMP.
$(BUILD)/impl_pthread/placement.o: impl_pthread/placement.c $(BUILD)/deps.ok $(BUILD)/gen/cflags
	@mkdir -p $(dir $@)
	@echo "  CC    $< $(if $(OPENMP),(OpenMP))"
	$(Q)$(CCACHE) $(CC) $(ALL_CFLAGS) $(HOST_INC) $(OPENMP) -c $< -o $@
$(BUILD)/exercises/%_openmp.o: exercises/%_openmp.c $(BUILD)/deps.ok $(BUILD)/gen/cflags
	@mkdir -p $(dir $@)
	@echo "  CC    $< (OpenMP)"
	$(Q)$(CCACHE) $(CC) $(ALL_CFLAGS) $(HOST_INC) $(OPENMP) -c $< -o $@

# The variant table: every impl_* file's SB_VARIANT lines (variant.h), in
# ladder order, for registry.c.  Read on every make (an exercise removed
# must leave it too), rewritten only when it changes.
$(BUILD)/gen/variants.inc: FORCE
	@mkdir -p $(dir $@)
	$(Q)sh scripts/variant_table.sh . > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# The test suite's groups: every tests/<module>/*.c file's table.
$(BUILD)/gen/test_groups.inc: FORCE
	@mkdir -p $(dir $@)
	$(Q)sh scripts/test_groups.sh tests > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/tests/test_main.o: tests/test_main.c $(BUILD)/gen/test_groups.inc $(BUILD)/deps.ok $(BUILD)/gen/cflags
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CCACHE) $(CC) $(ALL_CFLAGS) $(HOST_INC) -I$(BUILD)/gen -c $< -o $@

# The variants' code identities (bench/base/code_id.h) for registry.c: a
# small program built first hashes each variant file's text and all that
# reaches it.  Run on every make, rewritten only when an identity changes.
$(BUILD)/code_ids: scripts/code_ids.c bench/base/code_id.c bench/base/code_id.h $(BUILD)/deps.ok
	@mkdir -p $(dir $@)
	@echo "  CC    $@"
	$(Q)$(CC) -O2 -std=c11 -Wall -Wextra -Ibench -o $@ scripts/code_ids.c bench/base/code_id.c
$(BUILD)/gen/code_ids.inc: $(BUILD)/code_ids FORCE
	@mkdir -p $(dir $@)
	$(Q)$(BUILD)/code_ids . $$(sh scripts/variant_table.sh --files .) > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(BUILD)/bench/variants/registry.o: bench/variants/registry.c $(BUILD)/gen/variants.inc $(BUILD)/gen/code_ids.inc $(BUILD)/deps.ok $(BUILD)/gen/cflags
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CCACHE) $(CC) $(ALL_CFLAGS) $(HOST_INC) -I$(BUILD)/gen -c $< -o $@

$(BUILD)/impl_cuda/runtime_stub.o: impl_cuda/runtime_stub.c $(BUILD)/gen/buildinfo.h $(BUILD)/deps.ok $(BUILD)/gen/cflags
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CCACHE) $(CC) $(ALL_CFLAGS) -I$(BUILD)/gen -c $< -o $@

$(BUILD)/bench/machine/env.o $(BUILD)/bench/cli/main.o: $(BUILD)/bench/%.o: bench/%.c $(BUILD)/gen/buildinfo.h $(BUILD)/deps.ok
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CCACHE) $(CC) $(ALL_CFLAGS) $(HOST_INC) -I$(BUILD)/gen -c $< -o $@

$(CUDA_BUILD)/%.o: %.cu $(BUILD)/deps.ok $(CUDA_BUILD)/nvccflags
	@mkdir -p $(dir $@)
	@echo "  NVCC  $< (sm_$(subst $(eval) ,$(comma)sm_,$(strip $(CUDA_ARCH))))"
	$(Q)$(CCACHE) $(NVCC) $(ALL_NVCCFLAGS) -c $< -o $@

# ---- link -------------------------------------------------------------------
LINK = @echo "  LINK  $@"; $(CC) $(OPENMP) $(LDFLAGS) -o $@ $(filter %.o,$^) $(CUDA_LIBS) $(LDLIBS)

$(BUILD)/segbench: $(BUILD)/bench/cli/main.o $(LIB_OBJ) $(BUILD)/gen/link
	$(LINK)

$(BUILD)/sbgen: $(BUILD)/datasets/synth.o $(COMMON_SRC:%.c=$(BUILD)/%.o)
	@echo "  LINK  $@"; $(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/test_cpu: $(TEST_SRC:%.c=$(BUILD)/%.o) $(LIB_OBJ) $(BUILD)/gen/link
	$(LINK)

$(BUILD)/test_gpu: $(BUILD)/tests/test_gpu.o $(filter-out $(BUILD)/tests/test_main.o,$(TEST_SRC:%.c=$(BUILD)/%.o)) $(LIB_OBJ) \
                  $(BUILD)/gen/link
	$(LINK)

# ---- what the README promises -------------------------------------------------
ifneq ($(wildcard tests/test_main.c),)
test: $(BUILD)/test_cpu $(BUILD)/segbench $(BUILD)/sbgen $(BUILD)/rung_copies
	./$(BUILD)/test_cpu $(if $(filter 1,$(V)),-v)
else
test: $(BUILD)/segbench
	@echo "make test: a student's kit has no test suite (KIT.md): ./build/segbench grade checks your exercise"
endif

# bench/'s folders are layers and every include points down their order
# (bench/README.md), and no object of a layer uses a symbol that a higher
# layer defines (read from bench/'s objects with nm); no function in bench/
# is longer than 100 lines; no run state lives in a file's statics.  CI
# runs all three.
check-layers: $(filter $(BUILD)/bench/%,$(LIB_OBJ))
	@sh scripts/check_layers.sh bench $(BUILD)
check-size:
	@sh scripts/check_size.sh bench 100
check-statics:
	@sh scripts/check_statics.sh bench
# No new copy between the CUDA ladders' files (impl_cuda/README.md): the
# pairs that share 40 lines or more are listed in impl_cuda/COPIES.txt,
# which may only shrink (WRITE=1 writes it anew).
$(BUILD)/rung_copies: scripts/rung_copies.c
	@mkdir -p $(dir $@)
	@echo "  CC    $@"
	$(Q)$(CC) -O2 -std=c11 -Wall -Wextra -o $@ $<
check-copies: $(BUILD)/rung_copies
	@./$(BUILD)/rung_copies $(if $(filter 1,$(WRITE)),--write) impl_cuda impl_cuda/COPIES.txt

# The CPU suite under AddressSanitizer and UndefinedBehaviorSanitizer, in a
# build of its own (build-asan/, no CUDA); any finding fails it.
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g
test-asan:
	@$(MAKE) --no-print-directory BUILD=build-asan NVCC= CFLAGS="$(ASAN_FLAGS) $(CFLAGS)" \
	  LDFLAGS="$(ASAN_FLAGS) $(LDFLAGS)" build-asan/test_cpu build-asan/segbench build-asan/sbgen \
	  build-asan/rung_copies
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 ./build-asan/test_cpu

# libFuzzer targets (clang): the image loader, the PNM parser, the y4m reader, the dataset
# manifest parser, the results CSV readers (and --resume's repair) and the
# env.json reader, each for FUZZ_SECONDS from the seed corpus in
# tests/fuzz/<target>/ (new inputs go to build-fuzz/corpus-*, findings to
# build-fuzz/).  A finding fails the target; add its file to the corpus.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_LIB_SRC := $(COMMON_SRC) bench/cases/dataset.c bench/io/rows.c bench/variants/renames.c bench/base/csv.c bench/base/grow.c bench/base/json_out.c \
                bench/io/env_json.c bench/base/files.c bench/base/options.c
FUZZ_TARGETS := image pnm manifest results env y4m
build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_SRC) $(BUILD)/deps.ok
	@mkdir -p build-fuzz
	@echo "  FUZZ  $@"
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -std=c11 -D_XOPEN_SOURCE=700 -Iinclude -Ibench $(PNG_CFLAGS) -o $@ $< $(FUZZ_LIB_SRC) $(PNG_LIBS) -lm
fuzz: $(addprefix build-fuzz/fuzz_,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p build-fuzz/corpus-$$t; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  ./build-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	    -artifact_prefix=build-fuzz/$$t- -print_final_stats=1 build-fuzz/corpus-$$t tests/fuzz/$$t \
	    > build-fuzz/$$t.log 2>&1 || { tail -n 40 build-fuzz/$$t.log; echo "fuzz: $$t found a problem"; exit 1; }; \
	  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" build-fuzz/$$t.log | sed "s/^/  $$t: /"; \
	done

# sbgen: the bench test builds a set with a scene of its own
test-gpu: $(BUILD)/test_gpu $(BUILD)/segbench $(BUILD)/sbgen
	bash tests/run_gpu_tests.sh ./$(BUILD)/test_gpu

# One step of test-gpu each (a lent GPU machine may limit one command's time).
GPU_STEPS := agreement memcheck racecheck racecheck-1 racecheck-2 racecheck-3 racecheck-4 racecheck-5 synccheck initcheck
$(addprefix test-gpu-,$(GPU_STEPS)): test-gpu-%: $(BUILD)/test_gpu $(BUILD)/segbench $(BUILD)/sbgen
	bash tests/run_gpu_tests.sh ./$(BUILD)/test_gpu $*

# The course's exercises on a GPU: every CUDA lesson edge of ALGOS, its stub
# graded (must fail, exit 3) and its reference solution graded (must pass).
ALGOS ?= integral kmeans slic
test-course-gpu: $(BUILD)/segbench
	bash tests/run_course_gpu.sh $(ALGOS)

datasets: datasets/build/$(SET)/manifest.tsv
datasets/build/%/manifest.tsv: datasets/sets/%.set $(BUILD)/sbgen $(wildcard datasets/photos/*.png)
	./$(BUILD)/sbgen $< $(dir $@)

# bench --report writes this run's report (and report/MACHINES.md for a
# published machine, else its own page beside its report) and leaves every
# other machine's report as it is; `make report` rewrites them all.
# It ends saying where its time went: the build and datasets here, the
# rest in segbench's own account (each algorithm, streams, the report).
bench:
	@t0=$$(date +%s); $(MAKE) --no-print-directory all datasets $(BUILD)/tools.ok || exit $$?; t1=$$(date +%s); \
	echo "./$(BUILD)/segbench bench --set $(SET) --budget $(BUDGET) --stream-seconds $(STREAM_S) --host-limit $(HOST_LIMIT) --report $(BENCH_FLAGS)"; \
	./$(BUILD)/segbench bench --set $(SET) --budget $(BUDGET) --stream-seconds $(STREAM_S) --host-limit $(HOST_LIMIT) \
	  --report $(BENCH_FLAGS); \
	rc=$$?; t2=$$(date +%s); \
	echo "make bench: $$((t2 - t0)) s: build, datasets and tools $$((t1 - t0)) s, segbench bench $$((t2 - t1)) s" \
	  "(its account above)$(if $(filter 1,$(RECORD)),; the run of record's protocol (RECORD=1))"; exit $$rc

report: $(BUILD)/segbench $(BUILD)/tools.ok
	@./$(BUILD)/segbench history --quiet --out report || echo "make report: no history pages (segbench history reads the runs of record from git)"
	./$(BUILD)/segbench report
	./$(BUILD)/segbench docs

# The figures of README.md and docs/ from the results (make report runs it too).
docs: $(BUILD)/segbench
	./$(BUILD)/segbench docs

compare: all datasets
	@test -n "$(A)" -a -n "$(B)" || { echo "usage: make compare A=algo/variant B=algo/variant [SET=...]"; exit 2; }
	./$(BUILD)/segbench compare $(A) $(B) --set $(SET)

# A lesson as an exercise (docs/course.md): exercises/ALGO/<the rung's file>
# with the lesson's code taken out, built as ALGO/student-RUNG; SOLUTION=1
# writes the reference solution instead, FORCE=1 replaces a file there.
# make grade grades it (GRADE_FLAGS=... for segbench grade's options).
exercise: $(BUILD)/segbench
	@test -n "$(ALGO)" -a -n "$(RUNG)" || { echo "usage: make exercise ALGO=integral RUNG=cuda-transposed [SOLUTION=1] [FORCE=1]"; exit 2; }
	./$(BUILD)/segbench exercise "$$ALGO/$$RUNG" $(if $(SOLUTION),--solution) $(if $(FORCE),--force)
	@$(MAKE) --no-print-directory all
grade: all datasets/build/smoke/manifest.tsv
	@test -n "$(ALGO)" -a -n "$(RUNG)" || { echo "usage: make grade ALGO=integral RUNG=cuda-transposed [GRADE_FLAGS=...]"; exit 2; }
	@./$(BUILD)/segbench grade "$$ALGO/student-$$RUNG" $(GRADE_FLAGS); rc=$$?; \
	  [ $$rc = 0 ] || echo "make grade: segbench grade exited $$rc (1 wrong, 2 usage, 3 not faster); make exits 2 on any failure"; \
	  exit $$rc

# The whole process of `segbench run` (PNG decode and encode included) under
# hyperfine (an optional tool), on the set's largest image, every integral
# variant that can run here: results/<machine>/cli.json, shown by the report.
bench-cli: all datasets
	bash scripts/bench_cli.sh --set $(SET)

# Nsight Compute over every CUDA rung (a GPU machine with ncu; after make
# bench, so the profile is the same run's): results/<machine>/<algo>.profile.csv.
# make profile ALGO=integral RUNG=cuda-transposed: that lesson alone, the
# rung and its parent side by side (a scratch set; the published one is
# left alone).
profile: all datasets
	bash scripts/profile.sh --set $(SET) $(if $(RUNG),--edge "$(ALGO)/$(RUNG)")

# Warm against cold (docs/video.md): each algorithm with warm starts through
# the GPU rung bench streams, each scene cold then warm, 1 and 3 in flight ->
# results/<machine>/warm-<algo>.txt (after make bench; a GPU machine).
warm: all datasets
	bash scripts/warm.sh --set $(SET)

# Peers (optional; python3 with OpenCV, scikit-image, CuPy, PyTorch where
# installed): the same images on the same machine -> results/<machine>/peers.csv.
peers: all datasets
	@command -v python3 >/dev/null 2>&1 || { echo "make peers: python3 not found: peers skipped"; exit 0; }; \
	machine=$$(./$(BUILD)/segbench env --no-measure | sed -n 's/^ *"machine_id": "\(.*\)",$$/\1/p'); \
	commit=$$(git rev-parse HEAD 2>/dev/null || echo unknown)$$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo -dirty); \
	mkdir -p results/$$machine && python3 scripts/peers/peers.py --dataset datasets/build/$(SET) --out results/$$machine/peers.csv \
	  --machine "$$machine" --commit "$$commit"

# Many machines behind Slurm: one job per partition or GRES, then one report
# job (scripts/slurm/).  PARTITIONS=a100,h100 or GRES=gpu:a100:1,gpu:h100:1;
# TIME (minutes per task), ACCOUNT, SBATCH_FLAGS, SLURM_MAKE, ALGO (patterns), DRY_RUN=1;
# GRES=gpu:1,gpu:1 PER_GPU=1 CPUS=16: two tasks on two GPUs of one host, a set per GPU, 16 cores each.
# (Each value reaches submit.sh as one argument, read by the shell from the
# environment, where make puts variables given on its command line: make's
# own expansion inside the recipe would let '--comment="a b"' or a space
# in a name break the command apart.)
bench-slurm:
	bash scripts/slurm/submit.sh $(if $(PARTITIONS),--partitions "$$PARTITIONS") $(if $(GRES),--gres "$$GRES") \
	  $(if $(PARTITION),--partition "$$PARTITION") --time "$(or $(TIME),60)" \
	  $(if $(ACCOUNT),--account "$$ACCOUNT") $(if $(SBATCH_FLAGS),--sbatch "$$SBATCH_FLAGS") \
	  $(if $(SLURM_MAKE),--make "$$SLURM_MAKE") $(if $(ALGO),--algo "$$ALGO") --set "$(SET)" --budget "$(BUDGET)" \
	  $(if $(filter 1,$(PER_GPU)),--per-gpu) $(if $(CPUS),--cpus-per-task "$$CPUS") $(if $(DRY_RUN),--dry-run)

# make bench-slurm on a real one-node cluster of this machine (root; installs slurm-wlm and munge).
test-slurm: $(BUILD)/segbench
	bash tests/slurm/test_slurm.sh

# The two-GPU host's run (scripts/slurm/device-cluster.sh, docs/cluster.md)
# on this machine, CPU only: Debian's Slurm packages unpacked under a
# temporary prefix, two stand-in GPUs as gpu:2, a task per GPU with --per-gpu
# and half the cores each; each must get its own result set, at the same
# time as the other.  Root, and apt-get download where build/slurm-debs is
# missing.
test-slurm-gpus: $(BUILD)/segbench
	@test -n "$$(ls build/slurm-debs/*.deb 2>/dev/null)" || bash scripts/slurm/device-cluster.sh --download build/slurm-debs
	@d=$$(mktemp -d) && touch $$d/nvidia0 $$d/nvidia1 && \
	  bash scripts/slurm/device-cluster.sh --debs build/slurm-debs --gres-files $$d/nvidia0,$$d/nvidia1 \
	    --make "NVCC=" --set smoke --algo integral --time 10; rc=$$?; rm -rf $$d; exit $$rc

clean:
	rm -rf $(BUILD) build-asan build-fuzz build-slurm datasets/build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
