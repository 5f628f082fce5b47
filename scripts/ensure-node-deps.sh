#!/usr/bin/env bash
# Installs the npm packages the Node test suites run with, each exactly as its
# package-lock.json pins them:
#   clients/typescript   the TypeScript client's typescript and @types/node
#                        (dev dependencies only)
#   clients/openai-node  the official openai package, which drives the chat
#                        gateway in clients/clients_test.go
#   clients/ai-sdk       the Vercel AI SDK (ai, @ai-sdk/openai-compatible) its
#                        middleware is tested with, and a link to
#                        clients/typescript (compiled by the Go test)
#   clients/langchain    @langchain/core, @langchain/langgraph and
#                        @langchain/openai, and the same link
# Skips a directory whose node_modules already holds its lock file's install.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"

if ! command -v npm >/dev/null; then
  echo "node: npm not found; installing Debian's nodejs and npm"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm
fi

# install DIR MARKER: npm ci in DIR unless its node_modules was installed from
# the current lock file (a stamp of its hash) and still holds MARKER, a file
# the install leaves.
install() {
  local dir="$root/$1" marker="$2"
  local stamp="$dir/node_modules/.recall-lock-sha256"
  local want
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -e "$dir/node_modules/$marker" ]; then
    echo "node modules: up to date ($1)"
    return
  fi
  echo "node modules: npm ci in $1"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" >"$stamp"
}

install clients/typescript .bin/tsc
install clients/openai-node openai/package.json
install clients/ai-sdk ai/package.json
install clients/langchain @langchain/langgraph/package.json
