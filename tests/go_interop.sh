# Builds the Go client of the daemon's tests (tests/daemon/interop, grpc-go
# as Debian packages it, no network) into <work>/interop. Sourced by
# daemon.sh and filecoin_c2.sh.
#
# go_interop_build <work dir> <zkpipe binary>: 0 on success; on failure the
# reason is on stderr. The Go build cache stays in the binary's build
# directory when it may be written, so grpc-go compiles once per build tree.
go_interop_build() {
    local work=$1 build_dir here root gp gen_go pb_dir p
    build_dir=$(dirname "$2")
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    root=$(cd "$here/.." && pwd)
    if [ -w "$build_dir" ]; then GOCACHE="$build_dir/go-cache"; else GOCACHE="$work/go-cache"; fi
    gp="$work/gopath"
    export GO111MODULE=off GOFLAGS= GOENV=off GOTOOLCHAIN=local CGO_ENABLED=0 GOCACHE
    export GOPATH="$gp:${ZKPIPE_TEST_GOPATH:-/usr/share/gocode}"
    mkdir -p "$gp/src/zkpipe/interop" "$gp/bin"
    # The message code must match the protobuf runtime grpc-go marshals
    # with. github.com/golang/protobuf 1.4+ sits on google.golang.org/protobuf,
    # which protoc-gen-go (APIv2) targets; Debian's grpc-go may come with 1.3
    # instead, whose own protoc-gen-go (APIv1) is in its sources.
    pb_dir=$(go list -f '{{.Dir}}' github.com/golang/protobuf/proto 2>/dev/null) || {
        echo "github.com/golang/protobuf is not in GOPATH ($GOPATH); run 'make deps'" >&2
        return 1
    }
    go list google.golang.org/grpc >/dev/null 2>&1 || {
        echo "grpc-go is not in GOPATH ($GOPATH); run 'make deps'" >&2
        return 1
    }
    if grep -qs '"google.golang.org/protobuf/' "$pb_dir"/*.go && command -v protoc-gen-go >/dev/null; then
        gen_go=$(command -v protoc-gen-go)
    else
        gen_go="$gp/bin/protoc-gen-go"
        go build -o "$gen_go" github.com/golang/protobuf/protoc-gen-go || {
            echo "cannot build protoc-gen-go from github.com/golang/protobuf" >&2
            return 1
        }
    fi
    # One run per package: the APIv1 generator takes one Go package at a time.
    for p in cuzk/v1/proving zkpipe/v1/prover; do
        protoc -I"$root/proto" --plugin=protoc-gen-go="$gen_go" \
            --go_out="$gp/src" --go-grpc_out="$gp/src" "$root/proto/$p.proto" || {
            echo "protoc on proto/$p.proto failed" >&2
            return 1
        }
    done
    cp "$here"/daemon/interop/*.go "$gp/src/zkpipe/interop/"
    go build -o "$work/interop" zkpipe/interop || {
        echo "cannot build tests/daemon/interop" >&2
        return 1
    }
    GO_INTEROP_GEN="$gen_go"
}
