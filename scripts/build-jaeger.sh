#!/usr/bin/env bash
# Builds Jaeger all-in-one (the v2 `jaeger` binary: OTLP receivers, in-memory storage, query API)
# from the Go module proxy into a cache keyed by version, outside the repository, for the probe's
# end-to-end test. Idempotent: a cached binary is not rebuilt.
# Prints one progress line on stderr and the binary's path on stdout.
set -euo pipefail

# Jaeger tags each release twice (v1.x.y and v2.x.y on one commit); the module path has no /v2,
# so the proxy serves the release under its v1 tag. v1.76.0 is Jaeger v2.13.0.
JAEGER_VERSION="${JAEGER_VERSION:-v1.76.0}"
BUILD_NAME=jaeger
. "$(dirname "${BASH_SOURCE[0]}")/go-build-lib.sh"
OUT="$CACHE_ROOT/jaeger-$JAEGER_VERSION"
BIN="$OUT/bin"
LOG="$OUT/build.log"

if [ -x "$BIN/jaeger" ]; then
  say "jaeger $JAEGER_VERSION: cached"
  echo "$BIN/jaeger"
  exit 0
fi
require_go 1.24 "Jaeger $JAEGER_VERSION"
hold_lock "jaeger-$JAEGER_VERSION"
if [ -x "$BIN/jaeger" ]; then
  echo "$BIN/jaeger"
  exit 0
fi
mkdir -p "$BIN" || fail "cannot create $OUT"
go_proxy_env "-buildvcs=false"

say "jaeger $JAEGER_VERSION: building (first run only; several minutes on 2 cores; log $LOG)"
(
  # Jaeger's go.mod has replace directives, which `go install pkg@version` refuses: build inside a
  # copy of the module instead, with its own go.mod and go.sum.
  dir="$(go mod download -json "github.com/jaegertracing/jaeger@$JAEGER_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
  [ -d "$dir/cmd/jaeger" ] || { echo "github.com/jaegertracing/jaeger@$JAEGER_VERSION has no cmd/jaeger"; exit 1; }
  src="$OUT/src"
  rm -rf "$src" && mkdir -p "$src" || exit 1
  cp -r "$dir/." "$src/" && chmod -R u+w "$src" || exit 1
  cd "$src" || exit 1
  go build -mod=mod -trimpath -ldflags "-s -w" -o "$BIN/jaeger.tmp" ./cmd/jaeger || exit 1
  mv "$BIN/jaeger.tmp" "$BIN/jaeger" || exit 1
  cd / && rm -rf "$src"
) >"$LOG" 2>&1 || fail "Jaeger $JAEGER_VERSION did not build; see $LOG"
say "jaeger $JAEGER_VERSION: built"
echo "$BIN/jaeger"
