#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests of the PostgreSQL store.
#
#   pg-server.sh [start] DIR   initialise (once) and start a cluster kept in DIR,
#                              then print its URL on stdout (the only line printed there)
#   pg-server.sh stop DIR      stop it (a no-op when it is not running)
#
# Idempotent: starting a running cluster only prints the URL again. The server listens
# on 127.0.0.1 only (port BATON_PG_PORT, default 54329) with its socket inside DIR, and
# trusts every loopback connection: it holds test data and nothing else. Durability is
# switched off (fsync, synchronous_commit) because a crashed test cluster is thrown away.
set -euo pipefail

log() { echo "pg-server: $*" >&2; }

cmd=start
if [[ $# -ge 1 && ( $1 == start || $1 == stop ) ]]; then
  cmd=$1
  shift
fi
if [[ $# -ne 1 ]]; then
  echo "usage: $0 [start|stop] DIR" >&2
  exit 2
fi
mkdir -p "$1"
dir=$(cd "$1" && pwd)
data=$dir/data
port=${BATON_PG_PORT:-54329}
role=baton
database=baton_test

# The newest installed server's binaries: Debian keeps them out of PATH, under
# /usr/lib/postgresql/<version>/bin.
find_bin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [[ -n $d && -x $d/pg_ctl ]]; then
    echo "$d"
  elif command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v pg_ctl)")"
  fi
}

bin=$(find_bin)
if [[ -z $bin ]]; then
  if [[ $cmd == stop ]]; then exit 0; fi
  if [[ $(id -u) -ne 0 ]]; then
    log "PostgreSQL is not installed; install the postgresql package (as root: apt-get install -y postgresql)"
    exit 1
  fi
  log "installing PostgreSQL"
  apt-get update >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >&2
  bin=$(find_bin)
  [[ -n $bin ]] || { log "pg_ctl not found after installing postgresql"; exit 1; }
fi

# PostgreSQL refuses to run as root: as root, run it as the system user `postgres`
# (the Debian package creates it; create it when missing).
as_owner() { "$@"; }
if [[ $(id -u) -eq 0 ]]; then
  if ! id postgres >/dev/null 2>&1; then
    useradd --system --home-dir "$dir" --shell /usr/sbin/nologin postgres
  fi
  chown postgres: "$dir"
  as_owner() { runuser -u postgres -- "$@"; }
  if ! as_owner test -w "$dir"; then
    log "user postgres cannot write to $dir (a parent folder is closed to it); choose a folder under /tmp"
    exit 1
  fi
fi

running() { [[ -f $data/PG_VERSION ]] && as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; }

if [[ $cmd == stop ]]; then
  if running; then
    as_owner "$bin/pg_ctl" -D "$data" -m fast -w stop >&2
  fi
  exit 0
fi

if [[ ! -f $data/PG_VERSION ]]; then
  log "initialising a cluster in $data"
  rm -rf "$data"
  as_owner "$bin/initdb" -D "$data" --auth=trust --username=postgres --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
fi

# No autovacuum: a worker connected to a test's database (as the superuser) is a session
# the test role may not end, and DROP DATABASE ... WITH (FORCE) then fails the test file.
if ! running; then
  log "starting on 127.0.0.1:$port"
  as_owner "$bin/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c autovacuum=off" \
    start >&2 || { tail -n 30 "$dir/server.log" >&2; exit 1; }
fi

psql_admin() { as_owner "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres -d postgres "$@"; }
# CREATEDB because each test file makes and drops its own database.
psql_admin -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$role'" | grep -q 1 ||
  psql_admin -c "CREATE ROLE $role LOGIN CREATEDB" >&2
psql_admin -tAc "SELECT 1 FROM pg_database WHERE datname = '$database'" | grep -q 1 ||
  psql_admin -c "CREATE DATABASE $database OWNER $role" >&2

echo "postgres://$role@127.0.0.1:$port/$database"
