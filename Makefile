# ebb — the two commands that matter: `make run` and `make test`.
# Everything installs its own dependencies first (scripts/install-deps.sh, quiet when all present).

JOBS      ?= 2
BUILD     ?= build
ASAN      ?= build-asan
CONF      ?= conf/ebb.conf
CMAKE_GEN := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")

.PHONY: all deps build asan run test test-release test-asan clean format

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

asan: deps
	@cmake -S . -B $(ASAN) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DEBB_SANITIZE=ON -DEBB_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(ASAN) -j $(JOBS)

run: build
	@mkdir -p data
	./$(BUILD)/ebb-server $(CONF)

test-release: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan: asan
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(ASAN) --output-on-failure -j $(JOBS)

test: test-release test-asan

format:
	@find server protocol types storage tests bench -name '*.cc' -o -name '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN)
