#!/usr/bin/env bash
# Builds kstatus-wait (main.go, pinned by go.mod and go.sum) into the cache; prints the binary's path.
# Only bench/apply-set.mjs builds it, on first use.
exec bash "$(dirname "$0")/../../test/fixtures/build-go-fixture.sh" "$(dirname "$0")" kstatus-wait .
