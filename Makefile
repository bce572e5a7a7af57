# ebb — the two commands that matter: `make run` and `make test`.
# Everything installs its own dependencies first (scripts/install-deps.sh, quiet when all present).

JOBS      ?= 2
BUILD     ?= build
ASAN      ?= build-asan
TSAN      ?= build-tsan
CONF      ?= conf/ebb.conf
CMAKE_GEN := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
# ccache, except under CI (.ci/run sets CI=true): a fresh machine builds once, and a cache that is
# never read again only adds its own work to every compile.
CCACHE    := $(if $(CI),,$(shell command -v ccache >/dev/null 2>&1 && \
               echo "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"))
CMAKE     := cmake -S . $(CMAKE_GEN) $(CCACHE)
# Under CI the Release build compiles its libraries eight files to a unit as the sanitizer builds
# do (CMakeLists.txt, "Unity builds"): a cold build in half the time. The edit loop keeps each
# file on its own, for ccache and for the check of each file's own includes.
UNITY     := -DEBB_UNITY_LIBRARIES=$(if $(CI),ON,OFF)
# Each test pass prints when it starts, counted from make's start, so a slow run's log (CI shows
# its end) tells which build or pass took the time.
MAKE_START := $(shell date +%s)
started    = @echo "== $@ starts $$(( $$(date +%s) - $(MAKE_START) )) s after make began"

.PHONY: all deps build asan tsan run test test-quick test-release test-asan test-tsan soak bench \
        flake-hunt \
        clean format check-format command-docs

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@$(CMAKE) -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(UNITY) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# AddressSanitizer + UndefinedBehaviorSanitizer, built by Clang: every test, server included, and
# the libFuzzer targets of tests/fuzz/ (-DEBB_FUZZ=ON), so one build serves both passes.
ASAN_CC  ?= clang-14
ASAN_CXX ?= clang++-14
asan: deps
	@CC=$(ASAN_CC) CXX=$(ASAN_CXX) $(CMAKE) -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DEBB_SANITIZE=ON \
	  -DEBB_FUZZ=ON -DEBB_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(ASAN) -j $(JOBS)

# ThreadSanitizer: the engine's, the types' and the server's unit tests and the command tests
# (the engine's flush, compaction and sync threads against the callers'), and the integration
# tests against a TSan ebb-server (its event loop against the engine's threads).
tsan: deps
	@$(CMAKE) -B $(TSAN) -DCMAKE_BUILD_TYPE=Debug -DEBB_TSAN=ON -DEBB_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(TSAN) -j $(JOBS) --target unit_storage unit_types unit_server command_tests \
	  integration

# Rewrites the generated tables of docs/commands.md from the command rows and the option table.
command-docs: build
	./$(BUILD)/ebb-command-reference docs/commands.md

run: build
	@mkdir -p data
	./$(BUILD)/ebb-server $(CONF)

test-release: build
	$(started)
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The sanitizer passes run the GoogleTest binaries whole, in shards (scripts/run-shards.sh): a
# process per test, as ctest runs them, spent more than the tests under ASan (its ctest pass took
# 478 s, the same tests in two shards a binary 275 s). The longest binaries come first and each
# is cut in four, so that the last shards to end are short ones (unit_server goes before the
# storage and types tests: one of its shards holds a test that takes 67 s under TSan). ctest runs
# the rest (label `binary`: CMakeLists.txt). The six-node redis-cli --cluster test runs in the
# Release pass only (over four minutes under ASan); the cluster's C++ integration tests, with
# their kill -9 failover, run in every pass.
TEST_BINARIES := integration command_tests unit_server unit_storage unit_types unit_protocol \
                 unit_common
SHARDS        := 4
ASAN_ENV      := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
test-asan: asan
	$(started)
	$(ASAN_ENV) scripts/run-shards.sh $(JOBS) $(SHARDS) $(addprefix $(ASAN)/,$(TEST_BINARIES))
	$(ASAN_ENV) EBB_CRASH_SECONDS=10 \
	  ctest --test-dir $(ASAN) --output-on-failure -j $(JOBS) -LE '^(cluster|binary)$$'

# The libraries' threads are what TSan is for: the binaries of the layers that have them.
test-tsan: tsan
	$(started)
	TSAN_OPTIONS=halt_on_error=1 scripts/run-shards.sh $(JOBS) $(SHARDS) \
	  $(addprefix $(TSAN)/,$(filter-out unit_common unit_protocol,$(TEST_BINARIES)))

test: check-format test-release test-asan test-tsan fuzz-smoke
	$(started:starts=ends)

# The release unit, command and integration tests (no crash loop, no sanitizers, no fuzzing):
# a couple of minutes, for the edit-build-test loop.
test-quick: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE crash

# The crash loop for ten minutes instead of the default half minute, 200 power cuts per
# wal-fsync mode instead of 5, the expiry model test (tests/commands/model_test.cc) over 20
# seeds of 3000 steps instead of 4 of 500, and the replication, cluster and active-active
# nemeses over seeds 1-10 of 100 steps instead of one seed of 8.
soak: build
	EBB_CRASH_SECONDS=600 EBB_POWER_CUT_CYCLES=200 ctest --test-dir $(BUILD) --output-on-failure \
	  -L crash
	EBB_MODEL_SEEDS=20 EBB_MODEL_STEPS=3000 ctest --test-dir $(BUILD) --output-on-failure \
	  --timeout 7200 -R ModelTest
	for seed in 1 2 3 4 5 6 7 8 9 10; do \
	  EBB_TEST_SEED=$$seed EBB_NEMESIS_STEPS=100 $(BUILD)/integration \
	    --gtest_filter='ReplicationNemesisTest.*:ClusterNemesisTest.*:*/ActiveActiveNemesisTest.*' \
	    || exit 1; \
	done

# Every ctest test of the Release and ASan builds run FLAKE_REPEAT times, FLAKE_JOBS side by side
# (more than the cores: the load is the point), stopping each at its first failure; ctest's
# summary lists what failed. FLAKE_TESTS narrows it (a ctest -R regex).
FLAKE_REPEAT ?= 20
FLAKE_JOBS   ?= 6
FLAKE_TESTS  ?= .
flake-hunt: build asan
	-ctest --test-dir $(BUILD) -j $(FLAKE_JOBS) --repeat until-fail:$(FLAKE_REPEAT) \
	  -R '$(FLAKE_TESTS)' -LE '^(cluster|sentinel|clients|crash)$$' | tail -40
	-ASAN_OPTIONS=detect_leaks=1 ctest --test-dir $(ASAN) -j $(FLAKE_JOBS) \
	  --repeat until-fail:$(FLAKE_REPEAT) -R '$(FLAKE_TESTS)' \
	  -LE '^(cluster|sentinel|clients|crash|fuzz)$$' | tail -40

bench: build
	@scripts/install-deps.sh --bench
	python3 bench/server_bench.py --ebb $(BUILD)/ebb-server --out bench/results
	python3 bench/disk_bench.py --ebb $(BUILD)/ebb-server --out bench/results
	python3 bench/replication_bench.py --ebb $(BUILD)/ebb-server --out bench/results
	python3 bench/cluster_bench.py --ebb $(BUILD)/ebb-server --out bench/results
	python3 bench/active_active_bench.py --ebb $(BUILD)/ebb-server | tee bench/results/active_active_bench.md
	python3 bench/tlog_insert_bench.py --ebb $(BUILD)/ebb-server | tee bench/results/tlog_insert_bench.md
	@if [ -x $(BUILD)/engine_bench ]; then $(BUILD)/engine_bench | tee bench/results/engine_bench.md; fi

FORMAT_FILES = $(shell git ls-files '*.cc' '*.h')

format:
	@clang-format -i $(FORMAT_FILES)

# Fails (and names the files) when a source file differs from what clang-format makes of it.
check-format: deps
	@clang-format --dry-run --Werror $(FORMAT_FILES)

clean:
	rm -rf $(BUILD) $(ASAN) $(TSAN)

# --- Fuzzing (libFuzzer): the sanitizer build ($(ASAN)) holds one binary per tests/fuzz/*_fuzz.cc;
# runs are seeded from tests/fuzz/corpus/<name>/ (copied, so runs never write into the repo).
FUZZ_SMOKE_SECONDS ?= 12
FUZZ_TARGETS := $(patsubst tests/fuzz/%_fuzz.cc,%,$(wildcard tests/fuzz/*_fuzz.cc))

.PHONY: fuzz-smoke fuzz

# Every target for FUZZ_SMOKE_SECONDS (make fuzz: 300), JOBS targets at a time, each on a fresh copy
# of its corpus replayed first (scripts/fuzz-run.sh).
fuzz-smoke: asan
	$(started)
	@scripts/fuzz-run.sh $(ASAN) $(FUZZ_SMOKE_SECONDS) $(JOBS) $(FUZZ_TARGETS)

fuzz: asan
	@scripts/fuzz-run.sh $(ASAN) 300 $(JOBS) $(FUZZ_TARGETS)
