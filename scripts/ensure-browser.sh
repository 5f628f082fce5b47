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

# Chinese text in the pages (and their screenshots) needs a CJK font, and a
# bold Chinese title a face with a real bold weight: Debian's Chromium brings
# none, and WenQuanYi Zen Hei has no bold (Chromium then draws bold text
# regular). Noto Sans CJK has Regular and Bold.
if ! fc-list ':lang=zh:weight=200' family 2>/dev/null | grep -q 'Noto Sans CJK'; then
  echo "fonts: installing Chinese fonts with a bold weight (fonts-noto-cjk)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null
fi
echo "fonts: $(fc-list ':lang=zh:weight=200' family | grep -c .) bold Chinese families"

dir=pkg/ui/browsertest
if [ ! -d "$dir/node_modules/playwright-core" ]; then
  command -v npm >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; }
  echo "playwright-core: npm ci in $dir"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "playwright-core: $(node -p "require('./$dir/node_modules/playwright-core/package.json').version")"
