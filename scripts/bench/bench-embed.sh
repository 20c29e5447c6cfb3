#!/usr/bin/env bash
# Runs the embedding benchmarks (embed/bench_ort_test.go), each
# configuration in its own process so that the peak RSS it reports is its
# own. Needs `make tools model test-deps` first (`make bench` does that).
# Usage: scripts/bench/bench-embed.sh [BENCH_REGEXP]   (default: all of them)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
export CMDAI_TEST_MODEL_DIR="${CMDAI_TEST_MODEL_DIR:-$TOOLS/model/all-MiniLM-L6-v2}"
export CMDAI_ORT_LIB_DIR="${CMDAI_ORT_LIB_DIR:-$TOOLS/lib}"
cd "$REPO"
bin="$(mktemp -d)/embed.test"
trap 'rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=1 CGO_LDFLAGS="-L$TOOLS/lib" go test -tags ORT -c -o "$bin" ./embed

echo "# $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
list=(
	'BenchmarkEmbed/^ort-fp32-b1$' 'BenchmarkEmbed/^ort-fp32-b2$' 'BenchmarkEmbed/^ort-fp32-b4$'
	'BenchmarkEmbed/^ort-fp32-b8$' 'BenchmarkEmbed/^ort-fp32-b32$'
	'BenchmarkEmbed/^ort-int8-b1$' 'BenchmarkEmbed/^ort-int8-b8$' 'BenchmarkEmbed/^ort-int8-b32$'
	'BenchmarkEmbed/^go-fp32-b8$'
	'BenchmarkModelLoad/^ort-fp32$' 'BenchmarkModelLoad/^ort-int8$' 'BenchmarkModelLoad/^go-fp32$'
	'BenchmarkVersusBareORT'
)
if [ $# -gt 0 ]; then list=("$@"); fi
# The test binary runs in the package directory, as `go test` does.
cd embed
for b in "${list[@]}"; do
	"$bin" -test.run '^$' -test.bench "$b" -test.benchtime 1x -test.timeout 30m | grep -E '^Benchmark' || true
done
