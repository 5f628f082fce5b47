#!/usr/bin/env bash
# Makes sure the local PostgreSQL server can CREATE EXTENSION vector.
#
# Where the distribution ships postgresql-<ver>-pgvector it installs that package.
# Debian bookworm does not, so there the extension is built from Debian's own source
# package of a newer release (deb-src only; no binaries from that release are installed).
set -euo pipefail

PGHOST=${PGHOST:-127.0.0.1}
PGPORT=${PGPORT:-5432}
PGUSER=${PGUSER:-postgres}
export PGHOST PGPORT PGUSER

# A stopped local server is started (the machine's own cluster), so that a fresh
# machine where PostgreSQL is installed but down still works.
if ! pg_isready -h "$PGHOST" -p "$PGPORT" -q 2>/dev/null; then
  cluster=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -1)
  if [ -n "$cluster" ] && command -v pg_ctlcluster >/dev/null; then
    echo "postgres: not answering on $PGHOST:$PGPORT; starting cluster $cluster/main"
    pg_ctlcluster --skip-systemctl-redirect "$cluster" main start || true
    for _ in $(seq 1 30); do pg_isready -h "$PGHOST" -p "$PGPORT" -q && break; sleep 1; done
  fi
fi

# Recall needs pgvector 0.7 or newer (search embeddings are halfvec).
vector_version() {
  psql -d postgres -XAtc "select default_version from pg_available_extensions where name = 'vector'" 2>/dev/null || true
}
have_vector() {
  [ "$(psql -d postgres -XAtc "select count(*) from pg_available_extensions
        where name = 'vector' and string_to_array(default_version, '.')::int[] >= '{0,7,0}'" 2>/dev/null)" = "1" ]
}

if have_vector; then
  echo "pgvector: available ($(vector_version))"
  exit 0
fi
old=$(vector_version)
if [ -n "$old" ]; then
  echo "pgvector: $old is older than 0.7 (no halfvec); installing a newer one"
fi

ver=$(psql -d postgres -XAtc "show server_version_num" 2>/dev/null | cut -c1-2 || true)
if [ -z "$ver" ]; then
  ver=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -1)
fi
if [ -z "$ver" ]; then
  echo "pgvector: cannot find the PostgreSQL server version (is PostgreSQL running on $PGHOST:$PGPORT?)" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

if [ -z "$old" ]; then
  echo "pgvector: not installed for PostgreSQL $ver; installing"
fi
$SUDO apt-get update -qq

if [ -n "$(apt-cache policy "postgresql-$ver-pgvector" 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" {print $2}')" ]; then
  $SUDO apt-get install -y -qq "postgresql-$ver-pgvector"
else
  # Source package from the next Debian release; only deb-src, so nothing else changes.
  src=/etc/apt/sources.list.d/recall-pgvector-src.sources
  if [ ! -f "$src" ]; then
    $SUDO tee "$src" >/dev/null <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    $SUDO apt-get update -qq
  fi
  $SUDO apt-get install -y -qq "postgresql-server-dev-$ver" build-essential dpkg-dev
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # apt downloads as _apt when it can write the directory.
  if id _apt >/dev/null 2>&1; then chown _apt "$work" 2>/dev/null || true; fi
  (
    cd "$work"
    apt-get source -qq --download-only pgvector
    dpkg-source -x --no-check ./pgvector_*.dsc pgvector >/dev/null
    cd pgvector
    # OPTFLAGS="" keeps the build portable across CPUs of the same architecture.
    make -s PG_CONFIG="/usr/lib/postgresql/$ver/bin/pg_config" OPTFLAGS=""
    $SUDO make -s install PG_CONFIG="/usr/lib/postgresql/$ver/bin/pg_config"
  )
fi

if ! have_vector; then
  now=$(vector_version)
  if [ -n "$now" ]; then
    echo "pgvector: PostgreSQL lists pgvector $now; Recall needs 0.7 or newer" >&2
  else
    echo "pgvector: installed, but PostgreSQL still does not list the extension" >&2
  fi
  exit 1
fi
echo "pgvector: installed ($(vector_version))"
