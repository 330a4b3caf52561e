#!/bin/sh
# The images' entrypoint: no argument runs the service (main.js); a first argument naming a bundled
# command (operator-create, migrate, ledger-audit, … a <name>.js beside main.js) runs that command
# with the remaining arguments (`docker compose run --rm backend operator-create alice viewer`);
# anything else is executed as given (`… backend node --version`).
set -e
cd /app
# early-stop.mjs answers a SIGTERM that comes while main.js is still loading (node is PID 1 here).
if [ $# -eq 0 ]; then exec node --import /usr/local/lib/wordgame/early-stop.mjs --enable-source-maps main.js; fi
case "$1" in
  */* | main | *.js) ;;
  *) if [ -f "/app/$1.js" ]; then cmd=$1; shift; exec node --enable-source-maps "/app/$cmd.js" "$@"; fi ;;
esac
exec "$@"
