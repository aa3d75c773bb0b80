#!/usr/bin/env bash
# Builds the local control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
# kubectl, kwok) from the Go module proxy into a cache keyed by version, outside the repository.
# Idempotent: a component whose binary is already cached is not rebuilt.
# Prints one progress line per component on stderr and the bin folder on stdout.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.37.2}"
ETCD_VERSION="${ETCD_VERSION:-v3.7.3}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
BUILD_NAME=control-plane
. "$(dirname "${BASH_SOURCE[0]}")/go-build-lib.sh"
OUT="$CACHE_ROOT/k8s-$K8S_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION"
BIN="$OUT/bin"
LOGS="$OUT/build-logs"

require_go 1.26 "Kubernetes $K8S_VERSION"
hold_lock "control-plane-$K8S_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION"
mkdir -p "$BIN" "$LOGS" || fail "cannot create $OUT"
avail_kb=$(df -Pk "$OUT" | awk 'NR==2 {print $4}')
need_kb=$((6 * 1024 * 1024))
if [ "$(ls -A "$BIN" | wc -l)" -lt 7 ] && [ "${avail_kb:-0}" -lt "$need_kb" ]; then
  fail "not enough disk space under $OUT: $((avail_kb / 1024)) MiB free, about 6 GiB needed for the first build"
fi

go_proxy_env "-buildvcs=false -mod=mod"

have() { for b in "$@"; do [ -x "$BIN/$b" ] || return 1; done; }

build_k8s() {
  if have kube-apiserver kube-controller-manager kube-scheduler kubectl; then
    say "kube-apiserver, kube-controller-manager, kube-scheduler, kubectl $K8S_VERSION: cached"
    return
  fi
  say "kube-apiserver, kube-controller-manager, kube-scheduler, kubectl $K8S_VERSION: building (first run only; tens of minutes on 2 cores; log $LOGS/kubernetes.log)"
  local mod="$OUT/src/kubernetes" minor staging
  minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  staging="v0.${K8S_VERSION#v1.}"
  rm -rf "$mod"; mkdir -p "$mod"
  (
    # Every step checks its own status: `set -e` does not act inside a subshell tested by `||`.
    cd "$mod" || exit 1
    go mod init local.build/kubernetes || exit 1
    gomod="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
    [ -n "$gomod" ] || { echo "k8s.io/kubernetes@$K8S_VERSION is not on the module proxy"; exit 1; }
    # k8s.io/kubernetes maps its staging modules to ./staging; point each at its published version.
    for m in $(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$gomod"); do
      go mod edit -replace="$m=$m@$staging" || exit 1
    done
    go get "k8s.io/kubernetes@$K8S_VERSION" || exit 1
    cat > tools.go <<GO
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
    go mod tidy || exit 1
    ld="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitTreeState=clean"
    GOFLAGS="-buildvcs=false -mod=readonly" go build -trimpath -ldflags "$ld" -o "$BIN/" \
      k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
      k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl || exit 1
  ) >"$LOGS/kubernetes.log" 2>&1 || fail "Kubernetes $K8S_VERSION did not build; see $LOGS/kubernetes.log"
  say "kube-apiserver, kube-controller-manager, kube-scheduler, kubectl $K8S_VERSION: built"
}

build_etcd() {
  if have etcd etcdctl; then say "etcd, etcdctl $ETCD_VERSION: cached"; return; fi
  say "etcd, etcdctl $ETCD_VERSION: building (log $LOGS/etcd.log)"
  local mod="$OUT/src/etcd"
  rm -rf "$mod"; mkdir -p "$mod"
  (
    cd "$mod" || exit 1
    go mod init local.build/etcd || exit 1
    go get -tool "go.etcd.io/etcd/server/v3@$ETCD_VERSION" "go.etcd.io/etcd/etcdctl/v3@$ETCD_VERSION" || exit 1
    GOFLAGS="-buildvcs=false -mod=readonly" go build -trimpath -ldflags "-s -w" -o "$BIN/" go.etcd.io/etcd/server/v3 go.etcd.io/etcd/etcdctl/v3 || exit 1
    if [ -x "$BIN/v3" ]; then mv "$BIN/v3" "$BIN/etcd"; fi
    if [ -x "$BIN/server" ]; then mv "$BIN/server" "$BIN/etcd"; fi
  ) >"$LOGS/etcd.log" 2>&1 || fail "etcd $ETCD_VERSION did not build; see $LOGS/etcd.log"
  have etcd etcdctl || fail "etcd $ETCD_VERSION build produced no etcd/etcdctl binary; see $LOGS/etcd.log"
  say "etcd, etcdctl $ETCD_VERSION: built"
}

build_kwok() {
  if have kwok && [ -d "$OUT/kwok-stages" ]; then say "kwok $KWOK_VERSION: cached"; return; fi
  say "kwok $KWOK_VERSION: building (log $LOGS/kwok.log)"
  (
    GOBIN="$BIN" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" || exit 1
    dir="$(go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
    [ -d "$dir/kustomize/stage" ] || { echo "kwok $KWOK_VERSION has no kustomize/stage folder"; exit 1; }
    rm -rf "$OUT/kwok-stages" && mkdir -p "$OUT/kwok-stages" || exit 1
    cp -r "$dir/kustomize/stage/." "$OUT/kwok-stages/" && chmod -R u+w "$OUT/kwok-stages" || exit 1
  ) >"$LOGS/kwok.log" 2>&1 || fail "kwok $KWOK_VERSION did not build; see $LOGS/kwok.log"
  say "kwok $KWOK_VERSION: built"
}

build_etcd
build_kwok
build_k8s
echo "$BIN"
