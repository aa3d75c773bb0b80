#!/bin/sh
# The first step of `npm test`: the programs from the distribution that the tests run, before any
# test does. tmux is the real terminal of the terminal-UI tests; shellcheck is what actionlint checks
# the workflows' run: scripts with (test/e2e/workflows.test.ts). What is missing is installed with
# apt-get where the machine has it and it may be used (as root, or through sudo without a password);
# otherwise one line says what to install, and npm test stops there rather than fail those tests
# minutes later.
set -eu
missing=""
command -v tmux >/dev/null 2>&1 || missing="$missing tmux"
command -v shellcheck >/dev/null 2>&1 || missing="$missing shellcheck"
[ -n "$missing" ] || exit 0

sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo=sudo; else sudo=none; fi
fi
if command -v apt-get >/dev/null 2>&1 && [ "$sudo" != none ]; then
  echo "test: installing$missing (apt-get)" >&2
  # shellcheck disable=SC2086 # one word per package
  if $sudo apt-get update -qq >&2 && $sudo apt-get install -y -qq $missing >&2; then exit 0; fi
fi
echo "error: npm test needs$missing on PATH (the terminal-UI tests run in tmux; actionlint checks the workflows with shellcheck), and could not install them: install them (e.g. sudo apt-get install -y$missing) and run npm test again" >&2
exit 1
