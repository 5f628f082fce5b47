#!/usr/bin/env bash
# Installs the npm packages the TypeScript client is built and tested with
# (clients/typescript: typescript and @types/node, dev dependencies only),
# exactly as package-lock.json pins them. Skips when node_modules already
# holds that lock file's install.
set -euo pipefail

dir="$(cd "$(dirname "$0")/.." && pwd)/clients/typescript"
stamp="$dir/node_modules/.recall-lock-sha256"

if ! command -v npm >/dev/null; then
  echo "node: npm not found; installing Debian's nodejs and npm"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm
fi

want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$dir/node_modules/.bin/tsc" ]; then
  echo "node modules: up to date (clients/typescript)"
  exit 0
fi
echo "node modules: npm ci in clients/typescript"
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
echo "$want" >"$stamp"
