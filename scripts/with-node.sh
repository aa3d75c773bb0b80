#!/bin/sh
# Usage: sh scripts/with-node.sh COMMAND [ARG...]
#
# Runs COMMAND with a Node.js >= 22.19 first on PATH: the machine's own when it is new enough,
# otherwise Node.js 24 from the npm registry's `node` package, installed once into
# $INFORMER_TRACE_CACHE/node (default ~/.cache/informer-trace/node, the cache the control-plane
# binaries use). The npm scripts and .ci/run start their commands through it, so `npm ci`,
# `npm run demo` and `npm test` work unchanged where the distribution's Node.js is older
# (Debian's is 20). Plain POSIX sh, so it runs whatever Node.js is installed, or none.
set -eu

cache="${INFORMER_TRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/informer-trace}"
node_dir="$cache/node"

# Whether the `node` first on PATH is >= 22.19.
node_ok() {
  v=$(node --version 2>/dev/null) || return 1
  v=${v#v}
  major=${v%%.*}
  v=${v#*.}
  minor=${v%%.*}
  case "$major$minor" in '' | *[!0-9]*) return 1 ;; esac
  [ "$major" -gt 22 ] || { [ "$major" -eq 22 ] && [ "$minor" -ge 19 ]; }
}

if ! node_ok; then
  had=$(node --version 2>/dev/null || echo none)
  if [ ! -x "$node_dir/node_modules/.bin/node" ]; then
    command -v npm >/dev/null 2>&1 || {
      echo "error: Node.js >= 22.19 is needed (found: $had), and there is no npm to install it with" >&2
      exit 1
    }
    echo "node: $had is older than 22.19; installing Node.js 24 from the npm registry into $node_dir" >&2
    mkdir -p "$node_dir"
    # The `node` package fetches the platform's binary in an install script: allow that one by
    # name, so an npm that runs only allowed install scripts still installs it.
    [ -f "$node_dir/package.json" ] || echo '{ "allowScripts": { "node": true } }' >"$node_dir/package.json"
    npm install --no-audit --no-fund --prefix "$node_dir" node@24 >&2
  fi
  PATH="$node_dir/node_modules/.bin:$PATH"
  export PATH
  node_ok || {
    echo "error: Node.js >= 22.19 is needed (found: $had; $node_dir does not hold a working one)" >&2
    exit 1
  }
  echo "node: $had is older than 22.19; running under $(node --version) from $node_dir" >&2
fi

exec "$@"
