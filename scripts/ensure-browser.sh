#!/usr/bin/env bash
# Makes sure the inspector's browser tests can run: Debian's Chromium at
# /usr/bin/chromium and playwright-core (pinned by package-lock.json) under
# pkg/ui/browsertest/node_modules. Installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
  echo "chromium: installing Debian's package"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo missing)"

# Chinese text in the pages (and their screenshots) needs a CJK font; Debian's
# Chromium brings none.
if ! fc-list :lang=zh 2>/dev/null | grep -q .; then
  echo "fonts: installing a Chinese font (fonts-wqy-zenhei)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-wqy-zenhei >/dev/null
fi

dir=pkg/ui/browsertest
if [ ! -d "$dir/node_modules/playwright-core" ]; then
  command -v npm >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; }
  echo "playwright-core: npm ci in $dir"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "playwright-core: $(node -p "require('./$dir/node_modules/playwright-core/package.json').version")"
