# Sourced by the build scripts (set BUILD_NAME first): the cache folder outside the repository,
# progress and failure lines on stderr, and a Go environment that fetches from the module proxy only.

CACHE_ROOT="${INFORMER_TRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/informer-trace}"
say() { printf '%s build: %s\n' "$BUILD_NAME" "$*" >&2; }
fail() { printf '%s build failed: %s\n' "$BUILD_NAME" "$*" >&2; exit 1; }

# hold_lock NAME: one build of NAME at a time on this machine. A second caller (another checkout's
# tests, say) waits for the first and then finds the binaries cached, instead of building into the
# same folder at once. Held until the script exits; skipped where flock(1) is missing.
hold_lock() {
  command -v flock >/dev/null 2>&1 || return 0
  mkdir -p "$CACHE_ROOT" || fail "cannot create $CACHE_ROOT"
  exec 9>"$CACHE_ROOT/.$1.lock"
  flock -n 9 || { say "waiting for another build of $1 to finish"; flock 9; }
}

# require_go MIN_VERSION WHAT
require_go() {
  command -v go >/dev/null 2>&1 || fail "no Go toolchain on PATH (Go >= $1 is needed to build $2); install Go and retry"
}

# go_proxy_env GOFLAGS: static binaries with the local toolchain. Modules come from the module proxy
# only: a version the proxy does not have fails at once instead of falling back to fetching from
# version control, which has no network to reach here.
go_proxy_env() {
  export GOFLAGS="$1"
  export GOTOOLCHAIN=local
  GOPROXY="$(go env GOPROXY)"
  GOPROXY="${GOPROXY%,direct}"; GOPROXY="${GOPROXY%|direct}"
  [ -n "$GOPROXY" ] && [ "$GOPROXY" != direct ] || GOPROXY=https://proxy.golang.org
  export GOPROXY
  export CGO_ENABLED=0
}
