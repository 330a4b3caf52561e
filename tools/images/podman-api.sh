#!/usr/bin/env bash
# Podman's Docker-compatible API for Compose on a host with podman and no Docker (docs/operating/deploy.md
# "Deploy with compose"; CI runs it too). `start` serves the API on a socket (`podman system service`, run in the
# background, its log beside the socket) and, where systemd is not PID 1, a health ticker: podman
# runs HEALTHCHECKs from systemd timers, so without systemd no check ever runs, a container stays
# "starting" forever and `depends_on: condition: service_healthy` waits forever; the ticker runs
# `podman healthcheck run` for every container that has a check, every 2 s (as the images' 10 s
# interval would, only sooner). `stop` ends both. Prints the DOCKER_HOST line for Compose.
#
#   bash tools/images/podman-api.sh start [socket]   # default /run/wordgame/podman.sock
#   export DOCKER_HOST=unix:///run/wordgame/podman.sock
#   bash tools/images/podman-api.sh stop [socket]
set -euo pipefail
cmd=${1:-start}
sock=${2:-/run/wordgame/podman.sock}
dir=$(dirname "$sock")
mkdir -p "$dir"

stop_pidfile() {
  local f=$1 pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  # Only ours: the pid file names a process started by `start` (its own process group).
  kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
  rm -f "$f"
}

case "$cmd" in
  start)
    if [ -S "$sock" ] && [ -f "$dir/podman-service.pid" ] && kill -0 "$(cat "$dir/podman-service.pid")" 2>/dev/null; then
      echo "podman API already serving on $sock" >&2
    else
      rm -f "$sock"
      setsid podman system service --time 0 "unix://$sock" >"$dir/podman-service.log" 2>&1 &
      echo $! >"$dir/podman-service.pid"
      for _ in $(seq 1 50); do [ -S "$sock" ] && break; sleep 0.2; done
      [ -S "$sock" ] || { echo "podman system service did not open $sock (log: $dir/podman-service.log)" >&2; exit 1; }
    fi
    if [ "$(cat /proc/1/comm 2>/dev/null)" != systemd ] && ! [ -f "$dir/health-ticker.pid" ]; then
      setsid bash -c '
        while true; do
          for id in $(podman ps -q --filter health=starting; podman ps -q --filter health=healthy; podman ps -q --filter health=unhealthy); do
            podman healthcheck run "$id" >/dev/null 2>&1 || true
          done
          sleep 2
        done' >/dev/null 2>&1 &
      echo $! >"$dir/health-ticker.pid"
      echo "no systemd: health ticker started (pid $(cat "$dir/health-ticker.pid"))" >&2
    fi
    echo "export DOCKER_HOST=unix://$sock"
    ;;
  stop)
    stop_pidfile "$dir/health-ticker.pid"
    stop_pidfile "$dir/podman-service.pid"
    rm -f "$sock"
    ;;
  *) echo "usage: $0 start|stop [socket]" >&2; exit 2 ;;
esac
