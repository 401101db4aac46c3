# SPDX-License-Identifier: GPL-2.0
#
#   make            build ./uringcheck, the examples and the test programs
#   make demo       install what is missing, build, and run uringcheck on an
#                   example with a real overlap hazard (exits nonzero)
#   make check      install what is missing, build (the static binary too),
#                   run the whole test suite
#   make deps       install missing Debian build/test packages (root)
#   make bench      measure what uringcheck costs (bench/run.sh, ~10 min)
#   make liburing-src   get Debian's liburing source with apt and build its
#                   tests in .output/liburing-src (or LIBURING_SRC=DIR: build that)
#   make check-liburing run liburing's tests plainly and under uringcheck
#                   (testsuite/liburing/run.sh; TESTS="a b", LIBURING_SUBSET=ci)
#   make uringscope-src clone uringscope (needs the network; or
#                   URINGSCOPE_SRC=DIR: a copy) and build its pathology injector
#   make check-pathology uringscope's 11 pathology scenarios under
#                   --profile --check, each named by its rule or kind
#                   (testsuite/pathology/run.sh; SCENARIOS="a b")
#   make check-kernels  the test programs and a soak on Debian's kernels under
#                   qemu (testsuite/kernels/run.sh; KERNELS="6.1 6.12 7.2",
#                   KERNELS=all: every line from 6.1; SOAK_RUNS=N, 200)
#   make install    PREFIX=/usr/local (with STATIC=1: the static binary)
#   make STATIC=1   one statically linked binary, ./uringcheck-static, from
#                   its own objects in .output-static (README, A static
#                   binary: what it leaves out)
#   make check-asan the checker built with -fsanitize=address,undefined in
#                   .output-asan, then testsuite/asan/run.sh: usage errors,
#                   the runner, security and suppression tests and a few
#                   cases with LeakSanitizer on (~3 min; not part of check)
#   make fuzz       the libFuzzer harnesses of testsuite/fuzz/ (suppression
#                   file, options and URINGCHECK_OPTIONS, /proc/PID/maps)
#                   built with clang-19 and ASan/UBSan in .output-fuzz
#   make fuzz-short each harness for FUZZ_TIME (20) seconds from its corpus
#                   (testsuite/fuzz/corpus/); fails on any crash, leak,
#                   hang or exit (~1 min; a step of .ci/run)
#
OUTPUT    := $(if $(filter 1,$(STATIC)),.output-static,.output)
# The 6.18 verifier rejects some clang-14 output ("invalid access to map
# value"); clang-19 is Debian 12's newest and is what the tests load.
CLANG     ?= clang-19
LLVM_STRIP ?= llvm-strip-19
BPFTOOL   ?= /usr/sbin/bpftool
CC        ?= cc
ARCH      := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
CFLAGS    ?= -O2 -g
CFLAGS    += -Wall -Wextra -Wno-unused-parameter -std=gnu11 $(SAN_FLAGS)
CPPFLAGS  += -I$(OUTPUT) -I$(OUTPUT)/trace -Ibpf -Irun -Ilib -Iload -Ichecker -Ireports -Iprofile -Itrace
LDLIBS    += -lbpf -ldw -lelf -lz -lseccomp -ljson-c -lprotobuf-c -ldl -lpthread
PREFIX    ?= /usr/local

# make STATIC=1: every library from its Debian static archive, the same
# sources compiled with -DUC_STATIC (what differs is in static/ and marked
# UC_STATIC where it is used). libdw's own compression libraries (bz2,
# lzma) are named, a shared link gets them through libdw.so's NEEDED;
# __cxa_demangle (C++ names in stacks) from libstdc++.a, whose demangler
# object alone is pulled in. --wrap: libbpf's two functions that
# load/kernel_btf.c replaces (a shared link replaces them by symbol
# interposition, a static one cannot), and dlopen, which refuses in a
# static binary (static/no_dlopen.c). The linker's warnings that getpwuid
# and getgrouplist need glibc's shared libraries at run time do not hold
# for the files, which are all it asks (run/runner.c).
comma := ,
STATIC_WRAPS := btf__load_vmlinux_btf btf__find_by_name_kind dlopen
ifeq ($(STATIC),1)
UC_BIN    := uringcheck-static
CPPFLAGS  += -DUC_STATIC
LDFLAGS   += -static $(addprefix -Wl$(comma)--wrap=,$(STATIC_WRAPS))
LDLIBS    := -lbpf -ldw -lelf -lz -lbz2 -llzma -lseccomp -ljson-c -lprotobuf-c \
	     -l:libstdc++.a -lpthread
.DEFAULT_GOAL := $(UC_BIN)
endif

# Debian packages: building, then testing.
BUILD_DEPS := clang-19 llvm-19 bpftool libbpf-dev libelf-dev libdw-dev \
	      zlib1g-dev liburing-dev libseccomp-dev libjson-c-dev libmicrohttpd-dev \
	      liblzma-dev libbz2-dev \
	      libprotobuf-c-dev protobuf-c-compiler make gcc g++ libc6-dev pkg-config
TEST_DEPS  := fio python3 nodejs automake autoconf meson ninja-build cmake \
	      gnuplot-nox time dpkg-dev bc debuginfod prometheus sudo \
	      python3-prometheus-client curl protobuf-compiler python3-protobuf strace \
	      libclang-rt-19-dev python3-yaml

CHECKER_SRCS := $(wildcard run/*.c lib/*.c load/*.c checker/*.c checker/kinds/*.c checker/rules/*.c) $(wildcard reports/*.c) \
		$(if $(filter 1,$(STATIC)),$(wildcard static/*.c)) \
		$(wildcard symbolize/*.c) \
		$(wildcard profile/*.c) \
		$(wildcard trace/*.c)
CHECKER_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(CHECKER_SRCS)) $(OUTPUT)/trace/uringcheck_perfetto.pb-c.o
EXAMPLES     := $(patsubst examples/%.c,$(OUTPUT)/examples/%,$(wildcard examples/*.c))
TESTPROGS    := $(patsubst testsuite/cases/%.c,$(OUTPUT)/tests/%,$(wildcard testsuite/cases/*.c)) \
		$(patsubst testsuite/cases/%.cc,$(OUTPUT)/tests/%,$(wildcard testsuite/cases/*.cc))
UNITTESTS    := $(OUTPUT)/unit/test_interval_tree $(OUTPUT)/unit/test_report_rules \
		$(OUTPUT)/unit/test_suppressions $(OUTPUT)/unit/test_pb_stream \
		$(OUTPUT)/unit/test_reader_pace $(OUTPUT)/unit/test_u64map \
		$(OUTPUT)/unit/test_hook_misses

msg = @printf '  %-8s %s\n' "$(1)" "$(2)";

.PHONY: all demo check deps install clean bench liburing-src check-liburing check-kernels check-asan \
	uringscope-src check-pathology \
	fuzz fuzz-short
.DELETE_ON_ERROR:
.SECONDARY:

# The binary: ./uringcheck, or (make check-asan) .output-asan/uringcheck.
UC_BIN    ?= uringcheck

all: $(UC_BIN) $(EXAMPLES) $(TESTPROGS) $(UNITTESTS)

$(OUTPUT) $(OUTPUT)/examples $(OUTPUT)/tests $(OUTPUT)/unit:
	@mkdir -p $@

# CO-RE: the programs are compiled against this machine's kernel types and
# relocated by libbpf against whichever kernel they are loaded into.
$(OUTPUT)/vmlinux.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	@$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

# Each BPF object depends on the fragments it includes as the compiler
# lists them (-MMD, in .output/*.bpf.d, included below): editing any
# bpf/*.h rebuilds exactly the objects that include it. An object built
# before it had a list is rebuilt once, to get one.
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(OUTPUT) -Ibpf \
	      -Wall -Wno-unused-function -MMD -MP
bpf_deps = $(if $(wildcard $(OUTPUT)/$(1).bpf.d),,FORCE)
.PHONY: FORCE

$(OUTPUT)/uringcheck.bpf.o: bpf/uringcheck.bpf.c $(OUTPUT)/vmlinux.h $(call bpf_deps,uringcheck) | $(OUTPUT)
	$(call msg,BPF,$@)
	@$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	@$(LLVM_STRIP) -g $@

$(OUTPUT)/uringcheck.skel.h: $(OUTPUT)/uringcheck.bpf.o
	$(call msg,GEN-SKEL,$@)
	@$(BPFTOOL) gen skeleton $< > $@

# The profile mode's own programs: counting only (bpf/profile.bpf.c).
# -mcpu=v3: a ring slot is taken with an atomic fetch-and-add whose result
# is used (BPF_FETCH, 5.12+; the profile needs 6.1's tracepoints anyway).
$(OUTPUT)/profile.bpf.o: bpf/profile.bpf.c $(OUTPUT)/vmlinux.h $(call bpf_deps,profile) | $(OUTPUT)
	$(call msg,BPF,$@)
	@$(CLANG) $(BPF_CFLAGS) -mcpu=v3 -c $< -o $@
	@$(LLVM_STRIP) -g $@

# The trace mode's programs: one record per event (bpf/trace.bpf.c).
$(OUTPUT)/trace.bpf.o: bpf/trace.bpf.c $(OUTPUT)/vmlinux.h $(call bpf_deps,trace) | $(OUTPUT)
	$(call msg,BPF,$@)
	@$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	@$(LLVM_STRIP) -g $@

-include $(OUTPUT)/uringcheck.bpf.d $(OUTPUT)/profile.bpf.d $(OUTPUT)/trace.bpf.d

$(OUTPUT)/trace.skel.h: $(OUTPUT)/trace.bpf.o
	$(call msg,GEN-SKEL,$@)
	@$(BPFTOOL) gen skeleton $< name trace_bpf > $@

$(OUTPUT)/profile.skel.h: $(OUTPUT)/profile.bpf.o
	$(call msg,GEN-SKEL,$@)
	@$(BPFTOOL) gen skeleton $< name profile_bpf > $@

# Header dependencies come from the compiler (-MMD): a header changed in
# reports/ (say, a field added to struct uc_report) rebuilds every
# object that includes it, whichever folder it is in. The generated
# headers (skeletons, protobuf-c) are made before the first compile.
GENERATED_HEADERS := $(OUTPUT)/uringcheck.skel.h $(OUTPUT)/trace.skel.h \
		     $(OUTPUT)/profile.skel.h $(OUTPUT)/trace/uringcheck_perfetto.pb-c.h

# The Perfetto trace format (trace/uringcheck_perfetto.proto), through
# Debian's protobuf-c: generated here, never committed.
$(OUTPUT)/trace:
	@mkdir -p $@
$(OUTPUT)/trace/uringcheck_perfetto.pb-c.c $(OUTPUT)/trace/uringcheck_perfetto.pb-c.h: \
		trace/uringcheck_perfetto.proto | $(OUTPUT)/trace
	$(call msg,PROTOC-C,$@)
	@protoc-c --c_out=$(OUTPUT)/trace --proto_path=trace $<
$(OUTPUT)/trace/uringcheck_perfetto.pb-c.o: $(OUTPUT)/trace/uringcheck_perfetto.pb-c.c
	$(call msg,CC,$@)
	@$(CC) $(CPPFLAGS) -O2 -g -c $< -o $@

$(OUTPUT)/%.o: %.c | $(GENERATED_HEADERS)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	@$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(CHECKER_OBJS:.o=.d)

$(UC_BIN): $(CHECKER_OBJS)
	$(call msg,LINK,$@)
	@$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(OUTPUT)/examples/%: examples/%.c | $(OUTPUT)/examples
	$(call msg,CC,$@)
	@$(CC) -O2 -g -Wall -o $@ $< -luring -lpthread

# The test programs, each built from one source: their headers as the
# compiler lists them, beside each program in a hidden .NAME.d (a glob
# of a test folder sees programs only).
PROG_DEPS = -MMD -MP -MF $(@D)/.$(@F).d -MT $@
-include $(wildcard $(OUTPUT)/*/.*.d)

$(OUTPUT)/tests/%: testsuite/cases/%.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	@$(CC) -O2 -g -Wall $(PROG_DEPS) -o $@ $< -luring -lpthread

# C++ cases (operator new/delete): g++ is in BUILD_DEPS.
$(OUTPUT)/tests/%: testsuite/cases/%.cc | $(OUTPUT)/tests
	$(call msg,CXX,$@)
	@$(CXX) -O2 -g -Wall $(PROG_DEPS) -o $@ $< -luring -lpthread

$(OUTPUT)/unit/test_interval_tree: testsuite/unit/test_interval_tree.c \
		checker/interval_tree.c checker/interval_tree.h | $(OUTPUT)/unit
	$(call msg,CC,$@)
	@$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ testsuite/unit/test_interval_tree.c \
		checker/interval_tree.c

# The open-addressing map against a plain array of its entries.
$(OUTPUT)/unit/test_u64map: testsuite/unit/test_u64map.c lib/u64map.c lib/u64map.h \
		lib/xalloc.c | $(OUTPUT)/unit
	$(call msg,CC,$@)
	@$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ testsuite/unit/test_u64map.c lib/u64map.c lib/xalloc.c

# The skipped hook runs named per program.
$(OUTPUT)/unit/test_hook_misses: testsuite/unit/test_hook_misses.c checker/hook_misses.c \
		checker/hook_misses.h | $(OUTPUT)/unit
	$(call msg,CC,$@)
	@$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ testsuite/unit/test_hook_misses.c checker/hook_misses.c

$(OUTPUT)/unit/test_reader_pace: testsuite/unit/test_reader_pace.c \
		run/reader_pace.c run/reader_pace.h | $(OUTPUT)/unit
	$(call msg,CC,$@)
	@$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ testsuite/unit/test_reader_pace.c \
		run/reader_pace.c -lpthread

# Findings of a rule that is not a hazard kind, in every format: the
# reports core with the check mode's kinds (checker/kinds/) registered.
REPORT_SRCS := $(wildcard reports/*.c) $(wildcard checker/kinds/*.c) lib/opcode_names.c \
	       lib/user_files.c lib/xalloc.c
$(OUTPUT)/unit/test_report_rules: testsuite/unit/test_report_rules.c $(REPORT_SRCS) \
		$(wildcard reports/*.h) $(wildcard checker/kinds/*.h) \
		$(wildcard checker/kinds/*.def) | $(OUTPUT)/unit
	$(call msg,CC,$@)
	@$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ testsuite/unit/test_report_rules.c $(REPORT_SRCS) \
		-lseccomp -ljson-c

# The suppression parser and matcher, timed and against a brute-force
# matcher.
$(OUTPUT)/unit/test_suppressions: testsuite/unit/test_suppressions.c $(REPORT_SRCS) \
		$(wildcard reports/*.h) $(wildcard lib/*.h) | $(OUTPUT)/unit
	$(call msg,CC,$@)
	@$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ testsuite/unit/test_suppressions.c $(REPORT_SRCS) \
		-lseccomp -ljson-c

# The trace's compact Perfetto encoding, read back with protobuf-c.
$(OUTPUT)/unit/test_pb_stream: testsuite/unit/test_pb_stream.c trace/pb_stream.c \
		trace/pb_stream.h $(OUTPUT)/trace/uringcheck_perfetto.pb-c.c lib/u64map.c \
		lib/user_files.c lib/xalloc.c | $(OUTPUT)/unit
	$(call msg,CC,$@)
	@$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ testsuite/unit/test_pb_stream.c trace/pb_stream.c \
		$(OUTPUT)/trace/uringcheck_perfetto.pb-c.c lib/u64map.c lib/user_files.c \
		lib/xalloc.c -lprotobuf-c

# Installs only what is missing; a no-op on a prepared machine.
deps:
	@missing=""; for p in $(BUILD_DEPS) $(TEST_DEPS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' \
			|| missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "  DEPS     installing:$$missing"; \
		if [ "$$(id -u)" != 0 ]; then echo "make deps: run as root to install$$missing" >&2; exit 1; fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

demo: deps
	@$(MAKE) --no-print-directory all
	@echo "  DEMO     ./uringcheck $(OUTPUT)/examples/copy_reuse /etc/services /tmp/uringcheck-demo.out"
	@./uringcheck $(OUTPUT)/examples/copy_reuse /etc/services /tmp/uringcheck-demo.out

# The static binary too (its own objects, ~30 s): the suite's static
# section runs every case with it.
check: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory STATIC=1
	@testsuite/run.sh

# LeakSanitizer and UBSan on the checker's exit paths (README, In a test
# suite): its own objects in .output-asan; the test programs are the plain
# build's.
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
check-asan: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory OUTPUT=.output-asan UC_BIN=.output-asan/uringcheck \
		SAN_FLAGS="$(ASAN_FLAGS)" .output-asan/uringcheck .output-asan/unit/test_suppressions
	@testsuite/asan/run.sh

# The parsers of what a user hands in, fuzzed (testsuite/fuzz/README.md):
# libFuzzer (libclang-rt-19-dev) with ASan/UBSan, one binary a parser,
# each linked with the sources it needs. fuzz-short grows a scratch
# corpus in .output-fuzz/corpus/ from the seeds in the tree and fails
# on the first crash, leak, timeout or exit (its input is left in
# .output-fuzz/crash-*, leak-*, timeout-*).
FUZZ_OUT    := .output-fuzz
FUZZ_TIME   ?= 20
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	       -fno-omit-frame-pointer -Wall -Wextra -Wno-unused-parameter -std=gnu11
FUZZ_TARGETS := suppressions options proc_maps baseline
FUZZ_BINS   := $(addprefix $(FUZZ_OUT)/fuzz_,$(FUZZ_TARGETS))
FUZZ_SRCS_suppressions := $(REPORT_SRCS)
FUZZ_SRCS_options      := lib/options.c lib/filter.c $(REPORT_SRCS)
FUZZ_SRCS_proc_maps    := symbolize/proc_maps.c
FUZZ_SRCS_baseline     := profile/diff.c profile/snapshot.c reports/json.c lib/user_files.c \
			  lib/xalloc.c lib/filter.c lib/opcode_names.c
FUZZ_LIBS_suppressions := -lseccomp -ljson-c
FUZZ_LIBS_options      := -lseccomp -ljson-c
FUZZ_LIBS_proc_maps    := -ldw -lelf
FUZZ_LIBS_baseline     := -ljson-c
$(FUZZ_OUT):
	@mkdir -p $@
.SECONDEXPANSION:
$(FUZZ_OUT)/fuzz_%: testsuite/fuzz/fuzz_%.c $$(FUZZ_SRCS_$$*) $(wildcard reports/*.h lib/*.h \
		symbolize/*.h checker/kinds/*.h checker/kinds/*.def lib/*.def) | $(FUZZ_OUT)
	$(call msg,FUZZ-CC,$@)
	@$(CLANG) $(CPPFLAGS) -Isymbolize $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_SRCS_$*) $(FUZZ_LIBS_$*)

fuzz: $(FUZZ_BINS)

fuzz-short: deps
	@$(MAKE) --no-print-directory fuzz
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_OUT)/corpus/$$t; \
		echo "  FUZZ     $$t ($(FUZZ_TIME) s)"; \
		$(FUZZ_OUT)/fuzz_$$t -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
			-close_fd_mask=3 -print_final_stats=0 -artifact_prefix=$(FUZZ_OUT)/ \
			$(FUZZ_OUT)/corpus/$$t testsuite/fuzz/corpus/$$t \
			>$(FUZZ_OUT)/fuzz_$$t.log 2>&1 \
			|| { tail -60 $(FUZZ_OUT)/fuzz_$$t.log; echo "fuzz-short: fuzz_$$t failed" \
			     "(log: $(FUZZ_OUT)/fuzz_$$t.log)" >&2; exit 1; }; \
		tail -1 $(FUZZ_OUT)/fuzz_$$t.log; \
	done

# liburing's own test suite as an acceptance test (docs/liburing.md). The
# preparation step needs the network; check-liburing fetches nothing.
liburing-src: deps
	@LIBURING_SRC="$(LIBURING_SRC)" testsuite/liburing/get-source.sh

# uringscope's pathology scenarios (docs/profile.md, "Pathologies"): the
# preparation step clones uringscope (URINGSCOPE_URL, URINGSCOPE_REV; or
# URINGSCOPE_SRC=DIR, a copy) and builds its injector; check-pathology
# fetches nothing, and says it skipped when the injector is absent.
uringscope-src:
	@URINGSCOPE_SRC="$(URINGSCOPE_SRC)" URINGSCOPE_URL="$(URINGSCOPE_URL)" \
		URINGSCOPE_REV="$(URINGSCOPE_REV)" testsuite/pathology/get-source.sh

check-pathology: deps
	@$(MAKE) --no-print-directory uringcheck
	@SCENARIOS="$(SCENARIOS)" testsuite/pathology/run.sh; rc=$$?; \
		[ $$rc = 77 ] && rc=0; exit $$rc

check-liburing: deps
	@$(MAKE) --no-print-directory uringcheck
	@LIBURING_SRC="$(LIBURING_SRC)" TESTS="$(TESTS)" LIBURING_SUBSET="$(LIBURING_SUBSET)" \
		testsuite/liburing/run.sh

# The kernel matrix (docs/kernels.md): Debian's kernels under qemu (TCG),
# the test programs of testsuite/kernels/cases in each; its static:NAME
# lines run the static binary on static builds of those cases, in a root
# holding no shared library.
# (overlap_static, a stack test's, is built with the stack tests).
STATIC_TESTS := $(foreach n,$(shell sed -n 's/^static:\([^ ]*\).*/\1/p' testsuite/kernels/cases), \
		$(if $(wildcard testsuite/cases/$(n).c),.output/static-tests/$(n)))
.output/static-tests:
	@mkdir -p $@
.output/static-tests/%: testsuite/cases/%.c | .output/static-tests
	$(call msg,CC,$@)
	@$(CC) -O2 -g -Wall -static $(PROG_DEPS) -o $@ $< -l:liburing.a -lpthread
KERNELS ?= 6.1 6.12 7.2
KERNEL_DEPS := qemu-system-x86 busybox-static cpio
check-kernels: deps
	@missing=""; for p in $(KERNEL_DEPS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' \
			|| missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "  DEPS     installing:$$missing"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			$$missing >/dev/null; \
	fi
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory STATIC=1
	@$(MAKE) --no-print-directory $(STATIC_TESTS)
	@KERNELS="$(KERNELS)" $(if $(SOAK_RUNS),SOAK_RUNS="$(SOAK_RUNS)") testsuite/kernels/run.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@bench/run.sh

# STATIC=1 installs the static binary under the same name.
install: $(UC_BIN)
	install -D -m 0755 $(UC_BIN) $(DESTDIR)$(PREFIX)/bin/uringcheck
	install -D -m 0644 docs/uringcheck.1 $(DESTDIR)$(PREFIX)/share/man/man1/uringcheck.1

clean:
	rm -rf .output .output-static .output-asan .output-fuzz uringcheck uringcheck-static

# The reap-lag injection linked against liburing.a: the uprobe mode must
# find liburing inside the executable itself.
$(OUTPUT)/tests/static_reap-lag_wait: testsuite/cases/inj_reap-lag_wait.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	@$(CC) -O2 -g -Wall $(PROG_DEPS) -o $@ $< -l:liburing.a -lpthread
all: $(OUTPUT)/tests/static_reap-lag_wait

# The bench's floor: empty programs on the per-request hooks (bench/floor.c).
$(OUTPUT)/bench:
	@mkdir -p $@
$(OUTPUT)/bench/floor.bpf.o: bench/floor.bpf.c $(OUTPUT)/vmlinux.h | $(OUTPUT)/bench
	$(call msg,BPF,$@)
	@$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(OUTPUT) -MMD -MP -c $< -o $@
	@$(LLVM_STRIP) -g $@
-include $(OUTPUT)/bench/floor.bpf.d
$(OUTPUT)/bench/floor.skel.h: $(OUTPUT)/bench/floor.bpf.o
	@$(BPFTOOL) gen skeleton $< name floor_bpf > $@
$(OUTPUT)/bench/floor: bench/floor.c $(OUTPUT)/bench/floor.skel.h
	$(call msg,CC,$@)
	@$(CC) -O2 -g -Wall -I$(OUTPUT)/bench -o $@ $< -lbpf
all: $(OUTPUT)/bench/floor

# The kernel matrix's text-patching probe (testsuite/kernels/toggle.c,
# issue #30): empty programs attached and detached in a loop, no uringcheck.
$(OUTPUT)/kernels-tools:
	@mkdir -p $@
$(OUTPUT)/kernels-tools/toggle.bpf.o: testsuite/kernels/toggle.bpf.c $(OUTPUT)/vmlinux.h | $(OUTPUT)/kernels-tools
	$(call msg,BPF,$@)
	@$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(OUTPUT) -c $< -o $@
	@$(LLVM_STRIP) -g $@
$(OUTPUT)/kernels-tools/toggle.skel.h: $(OUTPUT)/kernels-tools/toggle.bpf.o
	@$(BPFTOOL) gen skeleton $< name toggle_bpf > $@
$(OUTPUT)/kernels-tools/toggle: testsuite/kernels/toggle.c $(OUTPUT)/kernels-tools/toggle.skel.h
	$(call msg,CC,$@)
	@$(CC) -O2 -g -Wall -I$(OUTPUT)/kernels-tools -o $@ $< -lbpf
all: $(OUTPUT)/kernels-tools/toggle

# Profile and doctor tests (testsuite/profile/tests.sh).
PROFPROGS := $(patsubst testsuite/profile/%.c,$(OUTPUT)/profile-tests/%,$(wildcard testsuite/profile/*.c))
all: $(PROFPROGS)
$(OUTPUT)/profile-tests:
	@mkdir -p $@
$(OUTPUT)/profile-tests/%: testsuite/profile/%.c | $(OUTPUT)/profile-tests
	$(call msg,CC,$@)
	@$(CC) -O2 -g -Wall $(PROG_DEPS) -o $@ $< -luring -lpthread

# Trace tests (testsuite/trace/tests.sh).
$(OUTPUT)/trace-tests:
	@mkdir -p $@
$(OUTPUT)/trace-tests/%: testsuite/trace/%.c | $(OUTPUT)/trace-tests
	$(call msg,CC,$@)
	@$(CC) -O2 -g -Wall $(PROG_DEPS) -o $@ $< -luring
all: $(patsubst testsuite/trace/%.c,$(OUTPUT)/trace-tests/%,$(wildcard testsuite/trace/*.c))

# Container tests' helpers (testsuite/containers/tests.sh).
$(OUTPUT)/containers:
	@mkdir -p $@
$(OUTPUT)/containers/%: testsuite/containers/%.c | $(OUTPUT)/containers
	$(call msg,CC,$@)
	@$(CC) -O2 -g -Wall -o $@ $<
all: $(patsubst testsuite/containers/%.c,$(OUTPUT)/containers/%,$(wildcard testsuite/containers/*.c))

# Loss tests (testsuite/run.sh, section loss).
LOSSPROGS := $(patsubst testsuite/loss/%.c,$(OUTPUT)/loss/%,$(wildcard testsuite/loss/*.c))
all: $(LOSSPROGS)
$(OUTPUT)/loss:
	@mkdir -p $@
$(OUTPUT)/loss/%: testsuite/loss/%.c | $(OUTPUT)/loss
	$(call msg,CC,$@)
	@$(CC) -O2 -g -Wall $(PROG_DEPS) -o $@ $< -luring

# Stack tests: one program, four builds; a submit from a library of ours.
STACKPROGS := $(addprefix $(OUTPUT)/stacks/,overlap_nofp overlap_fp overlap_nopie \
	overlap_static stack_lib overlap_stripped held_overlap stack_chains \
	stack_cut stack_reuse)
all: $(STACKPROGS)
$(OUTPUT)/stacks:
	@mkdir -p $@
STACK_SRC := testsuite/stacks/stack_overlap.c
$(OUTPUT)/stacks/overlap_nofp: $(STACK_SRC) | $(OUTPUT)/stacks
	$(call msg,CC,$@)
	@$(CC) -O2 -g -fomit-frame-pointer $(PROG_DEPS) -o $@ $< -luring
$(OUTPUT)/stacks/overlap_fp: $(STACK_SRC) | $(OUTPUT)/stacks
	$(call msg,CC,$@)
	@$(CC) -O2 -g -fno-omit-frame-pointer $(PROG_DEPS) -o $@ $< -luring
$(OUTPUT)/stacks/overlap_nopie: $(STACK_SRC) | $(OUTPUT)/stacks
	$(call msg,CC,$@)
	@$(CC) -O2 -g -no-pie -fno-pie $(PROG_DEPS) -o $@ $< -luring
$(OUTPUT)/stacks/overlap_static: $(STACK_SRC) | $(OUTPUT)/stacks
	$(call msg,CC,$@)
	@$(CC) -O2 -g -static $(PROG_DEPS) -o $@ $< -l:liburing.a -lpthread
# As distributions ship it: stripped, its debug info split off by build-id
# (debug/overlap_stripped.debug, served by debuginfod in the test), no
# .gnu_debuglink.
$(OUTPUT)/stacks/overlap_stripped: $(STACK_SRC) | $(OUTPUT)/stacks
	$(call msg,CC,$@)
	@mkdir -p $(OUTPUT)/stacks/debug
	@$(CC) -O2 -g -Wl,--build-id $(PROG_DEPS) -o $@.full $< -luring
	@objcopy --only-keep-debug $@.full $(OUTPUT)/stacks/debug/overlap_stripped.debug
	@objcopy --strip-debug --strip-unneeded $@.full $@
	@rm -f $@.full
$(OUTPUT)/stacks/held_overlap: testsuite/stacks/held_overlap.c | $(OUTPUT)/stacks
	$(call msg,CC,$@)
	@$(CC) -O2 -g $(PROG_DEPS) -o $@ $< -luring
$(OUTPUT)/stacks/stack_chains: testsuite/stacks/stack_chains.c | $(OUTPUT)/stacks
	$(call msg,CC,$@)
	@$(CC) -O2 -g $(PROG_DEPS) -o $@ $< -luring
$(OUTPUT)/stacks/stack_cut: testsuite/stacks/stack_cut.c | $(OUTPUT)/stacks
	$(call msg,CC,$@)
	@$(CC) -O2 -g $(PROG_DEPS) -o $@ $< -luring
$(OUTPUT)/stacks/stack_reuse: testsuite/stacks/stack_reuse.c | $(OUTPUT)/stacks
	$(call msg,CC,$@)
	@$(CC) -O2 -g $(PROG_DEPS) -o $@ $< -luring
$(OUTPUT)/stacks/libucsubmit.so: testsuite/stacks/libucsubmit.c | $(OUTPUT)/stacks
	$(call msg,CC,$@)
	@$(CC) -O2 -g -shared -fPIC -o $@ $< -luring
$(OUTPUT)/stacks/stack_lib: testsuite/stacks/stack_lib.c $(OUTPUT)/stacks/libucsubmit.so
	$(call msg,CC,$@)
	@$(CC) -O2 -g $(PROG_DEPS) -o $@ $< -L$(OUTPUT)/stacks -lucsubmit -luring \
		-Wl,-rpath,'$$ORIGIN'
