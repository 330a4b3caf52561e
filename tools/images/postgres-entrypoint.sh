#!/bin/sh
# The local postgres image's entrypoint (Dockerfile target `postgres`): behaves as the official
# postgres:15 image does for this stack. On the first start (an empty $PGDATA) it makes the cluster
# with POSTGRES_USER (superuser, default postgres) and POSTGRES_PASSWORD (required), creates
# POSTGRES_DB (default: the user's name), and lets clients on the network in with a password
# (scram-sha-256; local socket: trust, as upstream). Then, and on every later start, it runs the
# server listening on every address. Extra arguments go to postgres (`-c name=value`).
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
  pwfile=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 --locale=C --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$db" != postgres ]; then
    psql -v ON_ERROR_STOP=1 -U "$user" -d postgres -qc "CREATE DATABASE \"$db\" OWNER \"$user\""
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "postgres-entrypoint: cluster made in $PGDATA (user $user, database $db)"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
