# tracer - top-level Makefile.
#
#   make             build build/tracer-record and build/tracer-analyze
#   make test        install what is missing (scripts/deps.sh --test), then test-fast,
#                    then test-asan: what .ci/run and the README run
#   make test-fast   build and run every test once (unit, fuzz replay,
#                    integration, reliability)
#   make test-asan   under AddressSanitizer + UBSan (in $(O)-asan/, build-asan/ by default): unit,
#                    fuzz replays and the analyzer's hostile-input tests;
#                    ASAN_TESTS=all runs every test (~2x test-fast's time)
#   make test-long   long reliability runs (soak, 200 kill points; ~40 min)
#   make fuzz        build the libFuzzer targets (clang; tests/fuzz/fuzz_*.c,
#                    part of test-fast: tests/fuzz/smoke.sh runs each briefly)
#   make bpf-cross   compile the BPF programs for CROSS_ARCH (default arm64)
#   make demo        record the bundled sample pipeline, summarise, plot, report
#   make install     PREFIX=/usr/local DESTDIR=
#   make clean
#
# Dependency direction: format/ needs libc + libzstd; analyze/ needs format/
# (+ libarchive, libm) and never libbpf, clang or BTF; record/ needs libbpf,
# the BPF skeletons and format/.
# Quiet by default; V=1 shows the commands.

O ?= build
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
VERSION := 0.3.0

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
WARN := -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wformat=2 -Wvla
CFLAGS ?= -O2 -g
SAN ?=
ALL_CFLAGS := $(CFLAGS) $(SAN) $(WARN) -std=gnu11 -D_GNU_SOURCE -DTRACER_VERSION='"$(VERSION)"' \
	-I. -Iformat -I$(O)
LDFLAGS ?=
ALL_LDFLAGS := $(LDFLAGS) $(SAN)

.DELETE_ON_ERROR:
.SECONDARY:
.SUFFIXES:
.PHONY: all clean test test-fast test-asan test-long test-unit test-integration \
	test-reliability asan-run fuzz demo install deps bpf-cross

all: $(O)/tracer-record $(O)/tracer-analyze

# ---------------------------------------------------------------- format/
FORMAT_SRC := $(wildcard format/*.c)
FORMAT_OBJ := $(FORMAT_SRC:%.c=$(O)/%.o)
FORMAT_LIBS := -lzstd -lxxhash -lpthread

$(O)/libtz.a: $(FORMAT_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# ---------------------------------------------------------------- common/
# libc-only code both binaries share (common/redact.c: secret patterns;
# common/hmap.c: the u64 -> u64 hash table; common/numfmt.c: "1,234,567";
# common/vec.c: VEC_ROOM, an array that grows by doubling; common/strmap.c:
# an index of byte strings in order of first use)
COMMON_SRC := $(wildcard common/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=$(O)/%.o)

# ---------------------------------------------------------------- bpf/
# one object: tracer.bpf.c includes sample.bpf.c in place (one parse of
# the kernel's BTF at start-up, docs/PERFORMANCE.md)
BPF_SRC := bpf/tracer.bpf.c
BPF_OBJ := $(BPF_SRC:bpf/%.bpf.c=$(O)/%.bpf.o)
BPF_SKEL := $(BPF_SRC:bpf/%.bpf.c=$(O)/%.skel.h)

$(O)/vmlinux.h:
	$(call msg,BTF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

$(O)/%.bpf.o: bpf/%.bpf.c bpf/events.h $(wildcard bpf/*.h bpf/*.bpf.c) $(O)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__BPF__ -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
		-I$(O) -Ibpf -I. -c $< -o $@

$(O)/%.skel.h: $(O)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# sample.bpf.c is no object of its own any more: a build directory from
# before still names sample.skel.h in record/sample.d (an empty recipe: no
# attempt to compile sample.bpf.c alone)
$(O)/sample.skel.h: ;

# bpf-cross: compile the BPF programs for another architecture (CROSS_ARCH,
# default arm64) to check the per-architecture guards (libbpf-tools' way:
# -D__TARGET_ARCH_$(ARCH) and that architecture's vmlinux.h). VMLINUX_CROSS:
# its vmlinux.h (bpftool btf dump of one of its kernels); without one, this
# kernel's plus the few types it lacks (bpf/cross/$(CROSS_ARCH).h): that
# catches a missing arch branch and libbpf's per-arch macros, not a field of
# a host-only type used outside a guard. Compiles only: the verifier runs on
# the target machine. Part of test-fast.
CROSS_ARCH ?= arm64
VMLINUX_CROSS ?=
bpf-cross: $(if $(VMLINUX_CROSS),,$(O)/vmlinux.h)
	$(call msg,BPF,$(O)/cross-$(CROSS_ARCH)/*.bpf.o)
	$(Q)mkdir -p $(O)/cross-$(CROSS_ARCH)
	$(Q)$(if $(VMLINUX_CROSS),cp $(VMLINUX_CROSS) $(O)/cross-$(CROSS_ARCH)/vmlinux.h, \
		cp $(O)/vmlinux.h $(O)/cross-$(CROSS_ARCH)/vmlinux.h)
	$(Q)for f in $(BPF_SRC); do \
		$(CLANG) -g -O2 -target bpf -D__BPF__ -D__TARGET_ARCH_$(CROSS_ARCH) -Wall -Werror \
			$(if $(VMLINUX_CROSS),,$(if $(wildcard bpf/cross/$(CROSS_ARCH).h),-include bpf/cross/$(CROSS_ARCH).h)) \
			-I$(O)/cross-$(CROSS_ARCH) -Ibpf -I. -c $$f \
			-o $(O)/cross-$(CROSS_ARCH)/$$(basename $$f .c).o || exit 1; \
	done

# ---------------------------------------------------------------- record/
RECORD_SRC := $(wildcard record/*.c)
RECORD_OBJ := $(RECORD_SRC:%.c=$(O)/%.o)
# libbpf, libelf and the compressors linked in statically (RECORD_STATIC=0:
# shared; the -dev packages of scripts/deps.sh hold the .a files): loading
# five shared libraries took most of what `tracer-record --version` costs
# beyond /bin/true (docs/PERFORMANCE.md, "Issue 22 item 3: start-up <= 100 ms")
RECORD_STATIC ?= 1
comma := ,
RECORD_LIBS := $(if $(filter 1,$(RECORD_STATIC)),-Wl$(comma)-Bstatic) -lbpf -lelf -lz -lzstd -lxxhash \
	$(if $(filter 1,$(RECORD_STATIC)),-Wl$(comma)-Bdynamic) -lpthread

$(filter-out $(O)/record/schema.o,$(RECORD_OBJ)): $(BPF_SKEL)

$(O)/tracer-record: $(RECORD_OBJ) $(COMMON_OBJ) $(O)/libtz.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) $^ $(RECORD_LIBS) -o $@

# ---------------------------------------------------------------- analyze/
ANALYZE_SRC := $(wildcard analyze/*.c)
ANALYZE_LIB_OBJ := $(filter-out $(O)/analyze/tracer_analyze.o,$(ANALYZE_SRC:%.c=$(O)/%.o))
ANALYZE_LIBS := -larchive -ljson-c -lz -lm $(FORMAT_LIBS)

# the HTML report's page (analyze/report/, real files a browser or linter
# reads) compiled in as NUL-terminated byte arrays: report_html, report_css,
# report_js (+ _len without the NUL)
REPORT_ASSET := analyze/report/report.html analyze/report/report.css analyze/report/report.js

$(O)/report_asset.h: $(REPORT_ASSET)
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)for f in $^; do \
		n=$$(basename $$f | tr . _); \
		if [ $$f != analyze/report/report.html ] && grep -qi "</script" $$f; then echo "$$f: holds </script" >&2; exit 1; fi; \
		printf 'static const unsigned char %s[] = {\n' $$n; \
		od -An -v -tx1 $$f | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
		printf '0x00};\nstatic const unsigned int %s_len = %s;\n' $$n $$(wc -c < $$f); \
	done > $@.tmp && mv $@.tmp $@

$(O)/analyze/cmd_report.o: $(O)/report_asset.h

$(O)/libanalyze.a: $(ANALYZE_LIB_OBJ) $(COMMON_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(O)/tracer-analyze: $(O)/analyze/tracer_analyze.o $(ANALYZE_LIB_OBJ) $(COMMON_OBJ) $(O)/libtz.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) $^ $(ANALYZE_LIBS) -o $@

# ---------------------------------------------------------------- objects
$(O)/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

-include $(shell find $(O) -name '*.d' 2>/dev/null)

# ---------------------------------------------------------------- tests
# tests/unit/test_X.c -> $(O)/tests/test_X, linked with every library
# (cmocka). tests/helpers/X.c -> $(O)/tests/helpers/X: small workload
# programs the integration tests run. tests/fuzz/fuzz_X.c is built twice: a
# replay driver (every make) and a libFuzzer binary (make fuzz).
# Workload helpers are never built with sanitizers: they crash, leak and
# clone on purpose, and the recorder must see them as they are.
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(O)/tests/helpers/%)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_REPLAY := $(FUZZ_SRC:tests/fuzz/%.c=$(O)/tests/%-replay)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(O)/fuzz/%)

$(O)/tests/test_%: tests/unit/test_%.c $(O)/libanalyze.a $(O)/libtz.a $(O)/record/schema.o
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -Irecord -Itests/unit $< $(O)/record/schema.o $(O)/libanalyze.a $(O)/libtz.a \
		$(ALL_LDFLAGS) -lcmocka $(ANALYZE_LIBS) -o $@

# unit tests that need the recorder's objects (schema, --redact) link them too
$(O)/tests/test_record_%: tests/unit/test_record_%.c $(filter-out $(O)/record/main.o,$(RECORD_OBJ)) \
		$(COMMON_OBJ) $(O)/libtz.a
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit $< $(filter-out $(O)/record/main.o,$(RECORD_OBJ)) \
		$(COMMON_OBJ) $(O)/libtz.a $(ALL_LDFLAGS) -lcmocka $(RECORD_LIBS) -o $@

# tzwriter_* helpers write .tz files: they link the format library and schema
$(O)/tests/helpers/tzwriter_%: tests/helpers/tzwriter_%.c $(O)/libtz.a $(O)/record/schema.o
	$(call msg,HELPER,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -Irecord $< $(O)/record/schema.o $(O)/libtz.a $(ALL_LDFLAGS) \
		$(FORMAT_LIBS) -o $@

# *_static helpers run where no shared library is (C21: inside a chroot)
$(O)/tests/helpers/%_static: tests/helpers/%_static.c
	$(call msg,HELPER,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(filter-out -Wvla $(SAN),$(ALL_CFLAGS)) -static $< -o $@

# tzdecode prints a file's decoding for the conformance corpus: format + model
$(O)/tests/helpers/tzdecode: tests/helpers/tzdecode.c $(O)/libanalyze.a $(O)/libtz.a
	$(call msg,HELPER,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(O)/libanalyze.a $(O)/libtz.a $(ALL_LDFLAGS) $(ANALYZE_LIBS) -o $@

$(O)/tests/helpers/%: tests/helpers/%.c
	$(call msg,HELPER,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(filter-out -Wvla $(SAN),$(ALL_CFLAGS)) $< -lpthread -o $@

$(O)/tests/fuzz_%-replay: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c $(O)/libanalyze.a $(O)/libtz.a
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -Irecord $^ $(ALL_LDFLAGS) $(ANALYZE_LIBS) $(FUZZ_XLIBS) -o $@

# libFuzzer binaries: the libraries' sources compiled once with clang into
# $(O)/fuzz/obj/ (instrumented, not linked with libFuzzer's main), then one
# link per target; `make fuzz` is part of test-fast (tests/run.sh, fuzz-smoke)
FUZZ_SAN := address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -g -O1 $(WARN) -std=gnu11 -D_GNU_SOURCE -DTRACER_VERSION='"$(VERSION)"' \
	-I. -Iformat -I$(O)
FUZZ_LIB_SRC := $(FORMAT_SRC) $(COMMON_SRC) $(ANALYZE_LIB_OBJ:$(O)/%.o=%.c)
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.c=$(O)/fuzz/obj/%.o)

$(O)/fuzz/obj/%.o: %.c
	$(call msg,FUZZCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -Irecord -MMD -MP -c $< -o $@

# (the report's page is generated into $(O): analyze/cmd_report.c includes it)
$(O)/fuzz/obj/analyze/cmd_report.o: $(O)/report_asset.h

$(O)/fuzz/fuzz_%: $(O)/fuzz/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB_OBJ)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) -fsanitize=fuzzer,$(FUZZ_SAN) $^ $(ANALYZE_LIBS) $(FUZZ_XLIBS) -o $@

# the recorder's BTF cache reader (record/btfcache.c) links libbpf
$(O)/fuzz/fuzz_btfcache: $(O)/fuzz/obj/record/btfcache.o
$(O)/tests/fuzz_btfcache-replay: $(O)/record/btfcache.o
$(O)/fuzz/fuzz_btfcache $(O)/tests/fuzz_btfcache-replay: FUZZ_XLIBS := -lbpf -lelf -lz

fuzz: $(FUZZ_BIN)

TEST_BINS := $(UNIT_BIN) $(HELPER_BIN) $(FUZZ_REPLAY)

# the full pass, then the sanitizer pass (docs/RELIABILITY.md)
test: deps
	$(Q)$(MAKE) --no-print-directory test-fast
	$(Q)$(MAKE) --no-print-directory test-asan

test-fast: all bpf-cross $(TEST_BINS)
	$(Q)O=$(O) tests/run.sh

test-unit: all $(TEST_BINS)
	$(Q)O=$(O) tests/run.sh unit

test-integration: all $(TEST_BINS)
	$(Q)O=$(O) tests/run.sh integration

test-reliability: all $(TEST_BINS)
	$(Q)O=$(O) tests/run.sh reliability

test-long: all $(TEST_BINS)
	$(Q)O=$(O) tests/run.sh long

ASAN_TESTS ?= asan
test-asan:
	$(Q)$(MAKE) --no-print-directory O=$(O)-asan CFLAGS='-O1 -g -fno-omit-frame-pointer' \
		SAN='-fsanitize=address,undefined -fno-sanitize-recover=undefined' asan-run

asan-run: all $(TEST_BINS)
	$(Q)O=$(O) tests/run.sh $(ASAN_TESTS)

# demo.sh installs what is missing first, then builds (so no `all` prerequisite)
demo:
	$(Q)O=$(O) scripts/demo.sh

deps:
	$(Q)scripts/deps.sh --test

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(O)/tracer-record $(O)/tracer-analyze $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf build build-asan

# bench/run: tracer beside perf, bpftrace, libbpf-tools, atop and tracefs
# (root; ~10 min; BENCH_ARGS=--quick for ~2 min). docs/PERFORMANCE.md.
.PHONY: bench
bench: all
	$(Q)O=$(O) bench/run $(BENCH_ARGS)
