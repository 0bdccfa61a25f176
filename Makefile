# Entry points for people and CI. Everything real happens in CMake; this file
# installs what a fresh Debian 12 machine lacks, then drives the builds.
#
#   make test            build and run the whole suite (release, ASan/UBSan, TSan)
#   make test-release    the suite in the optimised build only
#   make test-sanitize   the suite under ASan+UBSan only
#   make test-tsan       the suite under ThreadSanitizer
#   make bench           build and run the arithmetic benchmarks
#   make deps            install missing build dependencies (apt-get, as root)

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
CTEST_FLAGS ?= --output-on-failure

APT_PACKAGES := build-essential cmake
DEP_COMMANDS := cc cmake make

.PHONY: all deps build test test-release test-sanitize test-tsan bench clean

all: build

deps:
	@missing=""; for c in $(DEP_COMMANDS); do command -v $$c >/dev/null 2>&1 || missing=1; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing: $(APT_PACKAGES)"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(APT_PACKAGES); \
	  else \
	    echo "missing build tools; run as root or: sudo apt-get install $(APT_PACKAGES)" >&2; exit 1; \
	  fi; \
	fi

build: deps
	cmake -S . -B build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)
	cmake --build build/release -j $(JOBS)

test-release: build
	cd build/release && ctest -j $(JOBS) $(CTEST_FLAGS)

test-sanitize: deps
	cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DZKPIPE_ENABLE_SANITIZE=ON -DZKPIPE_ENABLE_VERIFY=ON -DCMAKE_C_FLAGS=-O1 $(CMAKE_FLAGS)
	cmake --build build/sanitize -j $(JOBS)
	cd build/sanitize && ZKPIPE_TEST_ITERS=0.25 ctest -j $(JOBS) $(CTEST_FLAGS)

test-tsan: deps
	cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=Debug -DZKPIPE_ENABLE_TSAN=ON -DCMAKE_C_FLAGS=-O1 $(CMAKE_FLAGS)
	cmake --build build/tsan -j $(JOBS)
	cd build/tsan && ZKPIPE_TEST_ITERS=0.25 ctest -j $(JOBS) $(CTEST_FLAGS)

test: test-release test-sanitize test-tsan

bench: build
	./build/release/zkp_bench

clean:
	rm -rf build
