#!/bin/sh
# typescript-eslint's type-aware rules and knip (unused files, exports and dependencies), the last
# steps of `npm run lint`. They run from their own install here (package.json beside this file says
# why), made on first use and again when its lockfile changes.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
stamp="$here/node_modules/.installed-lock"
if [ ! -f "$stamp" ] || ! cmp -s "$here/package-lock.json" "$stamp"; then
  echo "lint: installing eslint, typescript-eslint and knip into tools/lint" >&2
  npm ci --prefix "$here" --no-audit --no-fund --loglevel=error >&2
  cp "$here/package-lock.json" "$stamp"
fi
cd "$root"
"$here/node_modules/.bin/eslint" -c "$here/eslint.config.mjs" --max-warnings 0 src tools test
"$here/node_modules/.bin/knip" --no-progress
