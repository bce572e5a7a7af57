# ebb — the two commands that matter: `make run` and `make test`.
# Everything installs its own dependencies first (scripts/install-deps.sh, quiet when all present).

JOBS      ?= 2
BUILD     ?= build
ASAN      ?= build-asan
TSAN      ?= build-tsan
CONF      ?= conf/ebb.conf
CMAKE_GEN := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
CCACHE    := $(shell command -v ccache >/dev/null 2>&1 && echo "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
CMAKE     := cmake -S . $(CMAKE_GEN) $(CCACHE)

.PHONY: all deps build asan tsan run test test-release test-asan test-tsan soak bench clean format

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@$(CMAKE) -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# AddressSanitizer + UndefinedBehaviorSanitizer: every test, server included.
asan: deps
	@$(CMAKE) -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DEBB_SANITIZE=ON -DEBB_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(ASAN) -j $(JOBS)

# ThreadSanitizer: the engine's tests, which exercise its background flush/compaction threads.
tsan: deps
	@$(CMAKE) -B $(TSAN) -DCMAKE_BUILD_TYPE=Debug -DEBB_TSAN=ON -DEBB_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(TSAN) -j $(JOBS) --target unit_storage

run: build
	@mkdir -p data
	./$(BUILD)/ebb-server $(CONF)

test-release: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan: asan
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 EBB_CRASH_SECONDS=10 \
	  ctest --test-dir $(ASAN) --output-on-failure -j $(JOBS)

test-tsan: tsan
	TSAN_OPTIONS=halt_on_error=1 $(TSAN)/unit_storage --gtest_brief=1

test: test-release test-asan test-tsan fuzz-smoke

# The crash loop for ten minutes instead of the default half minute.
soak: build
	EBB_CRASH_SECONDS=600 ctest --test-dir $(BUILD) --output-on-failure -L crash

bench: build
	@scripts/install-deps.sh --bench
	python3 bench/server_bench.py --ebb $(BUILD)/ebb-server --out bench/results
	@if [ -x $(BUILD)/engine_bench ]; then $(BUILD)/engine_bench | tee bench/results/engine_bench.md; fi

format:
	@find server protocol types storage tests bench -name '*.cc' -o -name '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN) $(TSAN) build-fuzz

# --- Fuzzing (clang + libFuzzer, outside the CMake build): one binary per tests/fuzz/*_fuzz.cc,
# seeded from tests/fuzz/corpus/<name>/ (copied, so runs never write into the repo).
# Each target links only the sources it exercises (FUZZ_SRC_<name>); objects are shared between
# targets and rebuilt only when a source or a header it includes changes.
FUZZ_DIR     ?= build-fuzz
FUZZ_CXX     ?= clang++-14
FUZZ_SMOKE_SECONDS ?= 12
FUZZ_TARGETS := request_parser wal_reader sst_reader units arg_parser
FUZZ_SRC_request_parser := protocol/*.cc
FUZZ_SRC_wal_reader     := storage/wal/*.cc storage/util/*.cc storage/status.cc
FUZZ_SRC_sst_reader     := storage/table/*.cc storage/format/*.cc storage/util/*.cc storage/status.cc
FUZZ_LIB_sst_reader     := -llz4 -lzstd
FUZZ_SRC_units          := server/config/units.cc
FUZZ_SRC_arg_parser     := server/commands/arg_parser.cc protocol/reply_writer.cc
FUZZ_SANITIZE := address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=c++20 -g -O1 -I. -fsanitize=fuzzer-no-link,$(FUZZ_SANITIZE)
FUZZ_LDFLAGS := -fsanitize=fuzzer,$(FUZZ_SANITIZE)
FUZZ_BINS    := $(foreach t,$(FUZZ_TARGETS),$(FUZZ_DIR)/$(t)_fuzz)
fuzz-objs     = $(patsubst %.cc,$(FUZZ_DIR)/obj/%.o,$(sort $(wildcard $(1))))

.PHONY: fuzz-build fuzz-smoke fuzz

$(FUZZ_DIR)/obj/%.o: %.cc
	@mkdir -p $(@D)
	@$(FUZZ_CXX) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

define fuzz-target-rule
$(FUZZ_DIR)/$(1)_fuzz: $(call fuzz-objs,$(FUZZ_SRC_$(1)) tests/fuzz/$(1)_fuzz.cc)
	@echo "linking $$@"
	@$(FUZZ_CXX) $(FUZZ_LDFLAGS) $$^ $(FUZZ_LIB_$(1)) -o $$@
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz-target-rule,$(t))))

-include $(shell find $(FUZZ_DIR)/obj -name '*.d' 2>/dev/null)

fuzz-build:
	@$(MAKE) --no-print-directory -j $(JOBS) $(FUZZ_BINS)

# fuzz-run SECONDS: runs every target for SECONDS on a fresh copy of its corpus; the corpus
# (regression seeds included) is replayed first, so a seed that crashes fails the run at once.
define fuzz-run
	@for t in $(FUZZ_TARGETS); do \
	  rm -rf $(FUZZ_DIR)/corpus-$$t && mkdir -p $(FUZZ_DIR)/corpus-$$t && \
	  cp tests/fuzz/corpus/$$t/* $(FUZZ_DIR)/corpus-$$t/ && \
	  echo "fuzzing $$t for $(1) s" && \
	  $(FUZZ_DIR)/$${t}_fuzz -max_total_time=$(1) -timeout=30 -artifact_prefix=$(FUZZ_DIR)/$$t- \
	    -print_final_stats=1 $(FUZZ_DIR)/corpus-$$t 2>$(FUZZ_DIR)/$$t.log || \
	    { tail -50 $(FUZZ_DIR)/$$t.log; exit 1; }; \
	  grep -E "^stat::number_of_executed_units" $(FUZZ_DIR)/$$t.log; \
	done
endef

fuzz-smoke: fuzz-build
	$(call fuzz-run,$(FUZZ_SMOKE_SECONDS))

fuzz: fuzz-build
	$(call fuzz-run,300)
