# systrace: make builds build/systrace; make check runs every test.
CC      ?= gcc
PREFIX  ?= /usr/local
BUILD   := build
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror
# Each folder sees the headers of what it may link and no others: an include of an
# analyses/ header from tracer/ (or of a tracer/ or stats/ one from analyses/) fails.
INC_common   := -Icommon
INC_patcher  := -Icommon -Ipatcher
INC_stats    := -Icommon -Istats
INC_tracer   := -Icommon -Istats -Ipatcher -Itracer -Ipreload
INC_analyses := -Icommon -Ianalyses
INC_tests    := -Icommon -Istats -Ipatcher -Itracer -Ipreload -Ianalyses
# the folder of the source $< (the generated name tables are common/'s)
folder = $(firstword $(subst /, ,$(patsubst $(BUILD)/gen/%,common/%,$<)))
CPPFLAGS_ALL = -D_GNU_SOURCE $(INC_$(folder)) $(shell pkg-config --cflags $(PKGS))
SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
PKGS    := libelf capstone libunwind-ptrace
LIBS     = $(shell pkg-config --libs $(PKGS))
CHECK_LIBS = $(shell pkg-config --libs check)

COMMON_SRC  := $(wildcard common/*.c)
STATS_SRC   := $(wildcard stats/*.c)
PATCHER_SRC := $(wildcard patcher/*.c)
TRACER_SRC  := $(wildcard tracer/*.c tracer/*.S)
ANALYSES_SRC := $(filter-out analyses/main.c,$(wildcard analyses/*.c))
GEN_SRC     := $(BUILD)/gen/syscall_table.c
# what build/systrace links besides tracer/main.c: no analyses/
LIB_SRC     := $(COMMON_SRC) $(STATS_SRC) $(PATCHER_SRC) $(filter-out tracer/main.c,$(TRACER_SRC))
UNIT_SRC    := $(wildcard tests/unit/*.c)
PROGRAM_SRC := $(filter-out %_preload.c %_dso.c,$(wildcard tests/programs/*.c))
# shared objects: preloaded ones, and ones a program loads itself (dlopen)
PRELOAD_SRC := $(wildcard tests/programs/*_preload.c tests/programs/*_dso.c)
# programs built with AddressSanitizer, once by gcc and once by clang (their runtimes
# differ: gcc's is a shared library that must come first, clang's is linked in)
SANITIZED_SRC := $(wildcard tests/programs/sanitized/*.c)
SANITIZED   := $(foreach p,$(SANITIZED_SRC:tests/programs/sanitized/%.c=%),$(BUILD)/tests/programs/$(p)_gcc $(BUILD)/tests/programs/$(p)_clang)
PROGRAMS    := $(PROGRAM_SRC:tests/programs/%.c=$(BUILD)/tests/programs/%) \
	       $(PRELOAD_SRC:tests/programs/%.c=$(BUILD)/tests/programs/%.so) $(SANITIZED)

obj = $(addprefix $(BUILD)/$(1)/,$(addsuffix .o,$(basename $(2))))

.PHONY: all deps check check-static check-unit check-e2e check-e2e-threads check-real stress install clean demo bench bench-inprocess bench-log2csv programs fuzz fuzz-deps
all: $(BUILD)/systrace $(BUILD)/systrace-stats

# Install missing dependencies once (apt-get; see scripts/install-deps.sh).
deps: $(BUILD)/.deps
$(BUILD)/.deps: scripts/install-deps.sh
	@mkdir -p $(BUILD)
	sh scripts/install-deps.sh
	@touch $@

$(BUILD)/gen/syscall_table.c: common/gen-syscall-names.sh | $(BUILD)/.deps
	@mkdir -p $(@D)
	sh common/gen-syscall-names.sh $(CC) > $@.tmp && mv $@.tmp $@

# Two flavours of every object: plain, and with AddressSanitizer + UBSan for tests.
$(BUILD)/plain/%.o: %.c | $(BUILD)/.deps
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<
$(BUILD)/asan/%.o: %.c | $(BUILD)/.deps
	@mkdir -p $(@D)
	@echo "  CC/SAN  $<"
	@$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) $(SANITIZE) -MMD -MP -c -o $@ $<
# machine code copied into traced processes (tracer/gate_code.S): one flavour
$(BUILD)/plain/%.o: %.S
	@mkdir -p $(@D)
	@echo "  AS      $<"
	@$(CC) $(CPPFLAGS_ALL) -MMD -MP -c -o $@ $<
$(BUILD)/asan/%.o: %.S
	@mkdir -p $(@D)
	@$(CC) $(CPPFLAGS_ALL) -MMD -MP -c -o $@ $<

$(BUILD)/systrace: $(call obj,plain,tracer/main.c $(LIB_SRC) $(GEN_SRC))
	$(CC) $(CFLAGS) -pthread -o $@ $^ $(LIBS)
$(BUILD)/asan/systrace: $(call obj,asan,tracer/main.c $(LIB_SRC) $(GEN_SRC))
	$(CC) $(CFLAGS) $(SANITIZE) -pthread -o $@ $^ $(LIBS)

# The analyses after the run: analyses/ and common/ alone, threads for the converter.
$(BUILD)/systrace-stats: $(call obj,plain,analyses/main.c $(ANALYSES_SRC) $(COMMON_SRC) $(GEN_SRC))
	$(CC) $(CFLAGS) -pthread -o $@ $^ -lm
$(BUILD)/asan/systrace-stats: $(call obj,asan,analyses/main.c $(ANALYSES_SRC) $(COMMON_SRC) $(GEN_SRC))
	$(CC) $(CFLAGS) $(SANITIZE) -pthread -o $@ $^ -lm

$(BUILD)/unit-tests: $(call obj,plain,$(UNIT_SRC) $(LIB_SRC) $(ANALYSES_SRC) $(GEN_SRC))
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) $(CHECK_LIBS)
$(BUILD)/asan/unit-tests: $(call obj,asan,$(UNIT_SRC) $(LIB_SRC) $(ANALYSES_SRC) $(GEN_SRC))
	$(CC) $(CFLAGS) $(SANITIZE) -o $@ $^ $(LIBS) $(CHECK_LIBS)

# Test programs: plain C, threads allowed; *_static.c are linked statically,
# gate_taken.c with its section .gate_squat at the gate address (preload/gate.h).
GATE_HEX := $(shell sed -n 's/^\#define SYSTRACE_GATE_HEX \(0x[0-9a-f]*\).*/\1/p' preload/gate.h)
GATE_TAKEN := -no-pie -Wl,--section-start=.gate_squat=$(GATE_HEX)
programs: $(PROGRAMS)
$(BUILD)/tests/programs/%.so: tests/programs/%.c
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARN) -Ipreload -fPIC -shared -o $@ $<
$(BUILD)/tests/programs/%: tests/programs/%.c $(wildcard tests/programs/*.h)
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARN) -Ipreload -pthread $(if $(findstring _static,$*),-static) \
		$(if $(findstring gate_taken,$*),$(GATE_TAKEN)) -o $@ $<

# (linked against a library of the tests' own, found at run time by LD_LIBRARY_PATH)
$(BUILD)/tests/programs/lib_hook_user: tests/programs/lib_hook_user.c $(BUILD)/tests/programs/lib_hook_dso.so
	$(CC) -O1 -g $(WARN) -o $@ $< -L$(BUILD)/tests/programs -l:lib_hook_dso.so
$(BUILD)/tests/programs/large_lib_user: tests/programs/large_lib_user.c $(BUILD)/tests/programs/large_lib_dso.so
	$(CC) -O1 -g $(WARN) -o $@ $< -L$(BUILD)/tests/programs -l:large_lib_dso.so

$(BUILD)/tests/programs/%_gcc: tests/programs/sanitized/%.c
	@mkdir -p $(@D)
	gcc -O1 -g $(WARN) -fsanitize=address -pthread -o $@ $<
$(BUILD)/tests/programs/%_clang: tests/programs/sanitized/%.c
	@mkdir -p $(@D)
	clang -O1 -g $(WARN) -fsanitize=address -pthread -o $@ $<

# what the tests run, built first two jobs at a time (a clean tree: 25 s against 52),
# then the tests one suite after another
CHECK_BUILD = $(BUILD)/systrace $(BUILD)/asan/systrace $(BUILD)/asan/systrace-stats $(BUILD)/unit-tests \
	      $(BUILD)/asan/unit-tests $(PROGRAMS)
check:
	$(MAKE) -j2 $(CHECK_BUILD)
	$(MAKE) check-static check-unit check-e2e check-e2e-threads
# no include cycle among the modules of a folder (their layers: docs/architecture.md)
check-static:
	for d in common patcher stats tracer analyses; do python3 tests/static/include_layers.py $$d || exit 1; done
check-unit: $(BUILD)/unit-tests $(BUILD)/asan/unit-tests
	$(BUILD)/unit-tests
	$(BUILD)/asan/unit-tests
# two tests at a time: most of a test's time is stops and waits, not CPU
E2E_JOBS ?= 2
check-e2e: $(BUILD)/systrace $(BUILD)/asan/systrace $(BUILD)/asan/systrace-stats $(PROGRAMS)
	E2E_JOBS=$(E2E_JOBS) sh tests/e2e/run-all.sh $(BUILD)

# the same with 4 serving threads and every exec handed to the next one, so that
# every hazard test crosses threads (tracer/handoff.h, docs/scaling.md)
check-e2e-threads: $(BUILD)/systrace $(BUILD)/asan/systrace $(BUILD)/asan/systrace-stats $(PROGRAMS)
	E2E_JOBS=$(E2E_JOBS) SYSTRACE_TEST_THREADS=4 SYSTRACE_TEST_HANDOFF=every-exec sh tests/e2e/run-all.sh $(BUILD)

# real programs (CPython's tests, git, xz, sort, libiberty, an interactive bash) under
# systrace against native runs and perf's counts (tests/real/run.sh; about 4 minutes beside a CPU hog, 2026-12-06)
check-real: $(BUILD)/systrace
	sh scripts/install-deps.sh real
	sh tests/real/run.sh $(BUILD)

# the threaded hazard programs many times over (STRESS_RUNS, default 200 each)
STRESS_RUNS ?= 200
STRESS_MODES ?= safe
stress: $(BUILD)/systrace $(PROGRAMS)
	sh tests/stress.sh $(BUILD) $(STRESS_RUNS) "$(STRESS_MODES)"

# systrace-stats log2csv on a generated log of LOG_ENTRIES (default 50 million) entries
bench-log2csv: $(BUILD)/systrace-stats
	sh bench/log2csv.sh $(BUILD)/systrace-stats $(LOG_ENTRIES)

# libFuzzer over the temporal log's checks and its conversion (tests/fuzz/run.sh; clang installed by scripts/install-deps.sh fuzz)
FUZZ_SECONDS ?= 60
FUZZ_SRC := tests/fuzz/fuzz_log.c analyses/log_file.c analyses/log_row.c analyses/log_csv.c common/csv.c common/syscall_names.c
fuzz: $(BUILD)/fuzz/fuzz_log
	sh tests/fuzz/run.sh $(BUILD) $(FUZZ_SECONDS)
fuzz-deps:
	sh scripts/install-deps.sh fuzz
$(BUILD)/fuzz/fuzz_log: $(FUZZ_SRC) $(GEN_SRC) | fuzz-deps
	@mkdir -p $(@D)
	clang -D_GNU_SOURCE -Icommon -Ianalyses $(CFLAGS) $(WARN) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-pthread -o $@ $^

demo: $(BUILD)/systrace
	sh workload/run-demo.sh $(BUILD)/systrace

bench: $(BUILD)/systrace
	sh bench/run.sh $(BUILD)/systrace

# getppid under the allow-all filter baseline, and the patch modes side by side
bench-inprocess: $(BUILD)/systrace
	sh bench/run-inprocess.sh $(BUILD)/systrace getppid threads

install: $(BUILD)/systrace $(BUILD)/systrace-stats
	install -D -m 755 $(BUILD)/systrace $(DESTDIR)$(PREFIX)/bin/systrace
	install -D -m 755 $(BUILD)/systrace-stats $(DESTDIR)$(PREFIX)/bin/systrace-stats
	install -D -m 644 man/systrace.1 $(DESTDIR)$(PREFIX)/share/man/man1/systrace.1
	install -D -m 644 man/systrace-stats.1 $(DESTDIR)$(PREFIX)/share/man/man1/systrace-stats.1

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
