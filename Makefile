# Entry points for people and CI. Everything real happens in CMake; this file
# installs what a fresh Debian 12 machine lacks, then drives the builds.
#
#   make test            build and run the whole suite (release, ASan/UBSan, TSan)
#                        and the fuzzing smoke run (test-fuzz)
#   make test-release    the suite in the optimised build only (its CUDA code
#                        compiled for sm_90 alone; `make build` compiles it for
#                        sm_80, sm_89 and sm_90)
#   make test-sanitize   the suite under ASan+UBSan only
#   make test-tsan       the suite under ThreadSanitizer (each case once, on the
#                        native arithmetic: a .portable twin runs the same
#                        threads over other field code, which the release and
#                        ASan runs cover)
#   make test-fuzz       build the libFuzzer targets (fuzz/fuzz_<name>.c, one per
#                        parser, with ASan+UBSan, in build/fuzz with clang) and
#                        run each for FUZZ_TIME seconds (default 15), JOBS at a
#                        time (fuzz/smoke.sh), over its
#                        seeds in fuzz/corpus/<name>/; new inputs it finds go to
#                        build/fuzz/corpus/, crashes to build/fuzz/artifacts/.
#                        Needs clang and the libFuzzer runtime (Debian 12:
#                        clang libclang-rt-14-dev), installed like `make deps`.
#                        Reproduce a crash: build/fuzz/fuzz_<name> <file>
#   make test-gpu        the GPU suite (gpu_* cases) on a machine with an
#                        NVIDIA GPU, in build/gpu (CUDA on, daemon off, so it
#                        needs only a compiler, CMake and the CUDA toolkit);
#                        a case that finds no GPU fails here instead of
#                        skipping
#   make bench           build and run the arithmetic benchmarks
#   make demo            prove and verify the bundled circom circuits on both
#                        curves with zkpipe, check them with snarkjs, print timings
#   make deps            install missing build dependencies (apt-get, as root)
#   make js-deps         npm ci in tests/fixtures (snarkjs for the interop tests)

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
CTEST_FLAGS ?= --output-on-failure

# The daemon (src/server) needs gRPC core, protobuf-c and libmicrohttpd; its
# interop test drives it from a Go client built in GOPATH mode from Debian's
# grpc-go packages, and its TLS tests make certificates with openssl.
# Cluster mode (src/queue) links libpq, and its tests (cluster_*) start a
# PostgreSQL server of their own with Debian's initdb and pg_ctl.
# Node.js and npm are checked by command, not by package: a machine may have
# them from another source (NodeSource's nodejs bundles npm and conflicts
# with Debian's npm package).
NODE_APT_PACKAGES := nodejs npm
APT_PACKAGES := build-essential cmake pkg-config \
  libgrpc-dev libprotobuf-c-dev protobuf-c-compiler libmicrohttpd-dev \
  golang-go golang-google-grpc-dev protoc-gen-go protoc-gen-go-grpc protobuf-compiler openssl \
  libpq-dev postgresql

FUZZ_TIME ?= 15

# The GPU code's architectures (CMakeLists.txt: Ampere, Ada and Hopper). The
# test suite compiles every .cu file once, for Hopper with its PTX: the
# kernels are one source for every architecture, and each further one adds
# minutes of nvcc to a suite that cannot run them on a machine without a GPU.
CUDA_ARCHS ?= 80-real;89-real;90
test-release: CUDA_ARCHS = 90
FUZZ_TARGETS := json snarkjs_proof snarkjs_public snarkjs_vk wtns r1cs zkey config c1 bp_vk bp_params bp_proof \
  cluster
FUZZ_APT_PACKAGES := clang libclang-rt-14-dev

.PHONY: all deps js-deps fuzz-deps build test test-release test-sanitize test-tsan test-fuzz test-gpu test-daemon-uploads bench demo clean

all: build

deps:
	@missing=$$(dpkg-query -W -f='$${Package} $${Status}\n' $(APT_PACKAGES) 2>/dev/null | \
	  awk '$$NF == "installed" { ok[$$1] = 1 } END { n = split("$(APT_PACKAGES)", p, " "); \
	  for (i = 1; i <= n; i++) if (!ok[p[i]]) printf "%s ", p[i] }'); \
	command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || missing="$$missing $(NODE_APT_PACKAGES)"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing: $$missing"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	  else \
	    echo "missing packages; run as root or: sudo apt-get install $$missing" >&2; exit 1; \
	  fi; \
	fi

# snarkjs (and circom2, circomlib for regenerating fixtures) from the
# committed lockfile: the interop tests and the demo check proofs with it.
js-deps: deps
	@[ -x tests/fixtures/node_modules/.bin/snarkjs ] || (cd tests/fixtures && npm ci --no-audit --no-fund)

# clang, and a libFuzzer runtime that links (the check compiles a stub target).
fuzz-deps: deps
	@ok=1; command -v clang >/dev/null 2>&1 || ok=""; \
	if [ -n "$$ok" ]; then \
	  tmp=$$(mktemp -d); \
	  printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' > $$tmp/t.c; \
	  clang -fsanitize=fuzzer $$tmp/t.c -o $$tmp/t >/dev/null 2>&1 || ok=""; \
	  rm -rf $$tmp; \
	fi; \
	if [ -z "$$ok" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing: $(FUZZ_APT_PACKAGES)"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(FUZZ_APT_PACKAGES); \
	  else \
	    echo "clang -fsanitize=fuzzer does not work; run as root or: sudo apt-get install $(FUZZ_APT_PACKAGES)" >&2; exit 1; \
	  fi; \
	fi

build: deps
	cmake -S . -B build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo '-DZKPIPE_CUDA_ARCHITECTURES=$(CUDA_ARCHS)' $(CMAKE_FLAGS)
	cmake --build build/release -j $(JOBS)

test-release: build js-deps
	cd build/release && ctest -j $(JOBS) $(CTEST_FLAGS)

# The cluster test's first part under the sanitizers: 50 concurrent jobs
# exercise the same claims, leases and takeovers for races and memory
# errors; the release run proves the full 200, in a quarter of the time.
SANITIZER_CLUSTER_JOBS ?= 50

# The sanitizer builds leave the CUDA objects out: nvcc's host code is not
# instrumented, so they would only add compile time; the release build
# compiles every .cu file and runs the host-side checks of the device code.
test-sanitize: js-deps
	cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DZKPIPE_ENABLE_SANITIZE=ON -DZKPIPE_ENABLE_VERIFY=ON -DZKPIPE_ENABLE_CUDA=OFF -DCMAKE_C_FLAGS=-O1 $(CMAKE_FLAGS)
	cmake --build build/sanitize -j $(JOBS)
	cd build/sanitize && ZKPIPE_TEST_ITERS=0.25 ZKPIPE_TEST_CLUSTER_JOBS=$(SANITIZER_CLUSTER_JOBS) \
	  ctest -j $(JOBS) $(CTEST_FLAGS)

test-tsan: js-deps
	cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=Debug -DZKPIPE_ENABLE_TSAN=ON -DZKPIPE_ENABLE_CUDA=OFF -DCMAKE_C_FLAGS=-O1 $(CMAKE_FLAGS)
	cmake --build build/tsan -j $(JOBS)
	cd build/tsan && TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp $(TSAN_OPTIONS)" \
	  ZKPIPE_TEST_ITERS=0.25 ZKPIPE_TEST_CLUSTER_JOBS=$(SANITIZER_CLUSTER_JOBS) \
	  ctest -j $(JOBS) -E '[.]portable$$' $(CTEST_FLAGS)

test-fuzz: fuzz-deps
	cmake -S . -B build/fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS=-O1 \
	  -DZKPIPE_ENABLE_CUDA=OFF -DZKPIPE_ENABLE_FUZZ=ON -DZKPIPE_ENABLE_TESTS=OFF -DZKPIPE_ENABLE_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build build/fuzz -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	./fuzz/smoke.sh $(FUZZ_TIME) $(JOBS) $(FUZZ_TARGETS)

test: test-release test-sanitize test-tsan test-fuzz

# The daemon's large-request checks at full size (tests/daemon.sh): ten
# 50 MB uploads beside GetStatus, and RSS after a 2000-witness request.
test-daemon-uploads: build js-deps
	cd build/release && ZKPIPE_TEST_UPLOADS=10x50 ctest -R '^daemon_grpc$$' --output-on-failure $(CTEST_FLAGS)

test-gpu:
	cmake -S . -B build/gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZKPIPE_ENABLE_CUDA=ON -DZKPIPE_ENABLE_SERVER=OFF $(CMAKE_FLAGS)
	cmake --build build/gpu -j $(JOBS) --target zkp_tests zkpipe_cli
	cd build/gpu && ZKPIPE_TEST_REQUIRE_GPU=1 ctest -j 1 -R '^gpu_' -E '[.]portable$$' $(CTEST_FLAGS)

bench: build
	./build/release/zkp_bench

# Prove and verify the bundled circuits on both curves, with timings.
demo: build js-deps
	bash tools/demo.sh build/release/zkpipe

clean:
	rm -rf build
