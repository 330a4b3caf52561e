#!/usr/bin/env bash
# `npm run images`: every image of the product from the one Dockerfile, with podman, on a fresh
# Debian/Ubuntu machine (run as root; docs/operating/deploy.md "Deploy with compose" starts here).
#
#   npm run images [-- --base node|debian] [--tag T] [--local-infra] [--env-file F] [--only a,b]
#   tools/images/images.sh --base debian --base-only   (steps 1-3, then prints the base image's name)
#
# 1. Installs what it needs when missing (podman, runc, slirp4netns, uidmap, catatonit,
#    fuse-overlayfs; debootstrap for --base debian) with apt-get.
# 2. Writes the podman settings this kind of host needs to /etc/containers/containers.conf (only when
#    that file is missing or was written by this script; else it says which settings differ):
#    runtime runc (crun refuses hybrid cgroups), cgroup_manager cgroupfs and events_logger file (no
#    systemd here), and default_ulimits of 16384 files and processes, lower when this shell's hard
#    limits are (podman's default nofile of 1048576 is refused where the host allows less).
# 3. The base image: --base node uses node:<.nvmrc>-bookworm-slim from Docker Hub; --base debian
#    builds the Debian base as CI does (tools/images/base-debian.sh: debootstrap from the apt mirror
#    plus the registry's Node). Default: node when Docker Hub answers a pull, else debian.
# 4. Builds each service's target (backend gateway bot platform-emulator provider-emulator
#    mailcatcher) as localhost/wordgame/<service>:<tag> (default tag latest, what docker-compose.yml
#    uses unless WORDGAME_TAG says otherwise) with --format docker (OCI drops HEALTHCHECK) and
#    --network host (the build network may have no route out), and the local equivalents of the
#    public infrastructure images (postgres, nats, prometheus, alertmanager) when --local-infra is
#    given or the base is debian (Docker Hub out of reach); --env-file F then sets POSTGRES_IMAGE,
#    NATS_IMAGE, PROMETHEUS_IMAGE and ALERTMANAGER_IMAGE in F (your compose .env) to them.
# 5. Checks each product image for dev-only packages (tools/build/dev-deps-check.mjs) and prints
#    every image's size. Exits non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

base_kind=auto
tag=latest
local_infra=auto
env_file=
only=
base_only=no
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base_kind=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --local-infra) local_infra=yes; shift ;;
    --env-file) env_file=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --base-only) base_only=yes; shift ;;
    -h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$base_kind" in auto | node | debian) ;; *) echo "--base is node or debian" >&2; exit 2 ;; esac

say() { printf '[images %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
[ "$(id -u)" -eq 0 ] || { echo "run as root (podman builds, debootstrap and /etc/containers/containers.conf need it)" >&2; exit 1; }

# 1. Tools.
need=()
for tool in podman runc slirp4netns newuidmap fuse-overlayfs; do command -v "$tool" >/dev/null || need+=("$tool"); done
[ -x /usr/libexec/podman/catatonit ] || command -v catatonit >/dev/null || need+=(catatonit)
[ "$base_kind" = node ] || command -v debootstrap >/dev/null || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
  pkgs=(podman runc slirp4netns uidmap catatonit fuse-overlayfs)
  [ "$base_kind" = node ] || pkgs+=(debootstrap)
  say "installing ${pkgs[*]} (missing: ${need[*]})"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
fi

# 2. Podman settings.
limit() { # ulimit flag, cap for "unlimited"
  local v
  v=$(ulimit -H "$1")
  [ "$v" = unlimited ] && v=$2
  [ "$v" -gt "$2" ] && v=$2
  echo "$v"
}
# 16384 each: enough for every service here, and no higher than such hosts permit (a value above
# the limits the runtime's own process got is refused, and those can be lower than this shell's).
nofile=$(limit -n 16384)
nproc=$(limit -u 16384)
conf=/etc/containers/containers.conf
marker='# written by wordgame tools/images/images.sh'
wanted="$marker (npm run images): what podman needs on this kind of host.
[containers]
default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]
[engine]
runtime = \"runc\"
cgroup_manager = \"cgroupfs\"
events_logger = \"file\""
if [ -n "${CONTAINERS_CONF:-}" ]; then
  say "CONTAINERS_CONF=$CONTAINERS_CONF is set: podman reads that file, left as it is"
elif [ ! -e "$conf" ] || head -1 "$conf" | grep -qF "$marker"; then
  mkdir -p "$(dirname "$conf")"
  printf '%s\n' "$wanted" >"$conf"
  say "podman settings written to $conf: runtime runc, cgroupfs, events in a file, ulimits nofile=$nofile nproc=$nproc"
else
  say "$conf exists and is not ours: left as it is; this host needs these settings in it:"
  printf '%s\n' "$wanted" | sed 1d
fi

# 3. The base image.
node_version=$(tr -dc '0-9.' <.nvmrc)
official="docker.io/library/node:${node_version}-bookworm-slim"
t0=$(date +%s)
if [ "$base_kind" = auto ]; then
  if timeout 60 podman pull -q "$official" >/dev/null 2>&1; then base_kind=node; else base_kind=debian; fi
  say "base: $base_kind ($official $([ "$base_kind" = node ] && echo pulled || echo 'cannot be pulled here'))"
fi
if [ "$base_kind" = node ]; then
  podman image exists "$official" || podman pull -q "$official" >/dev/null
  base=$official
else
  base=$(bash tools/images/base-debian.sh)
fi
[ "$local_infra" = auto ] && { [ "$base_kind" = debian ] && local_infra=yes || local_infra=no; }
t1=$(date +%s)
say "base image $base ($((t1 - t0)) s)"
if [ "$base_only" = yes ]; then echo "$base"; exit 0; fi

# 4. The images.
services=(backend gateway bot platform-emulator provider-emulator mailcatcher)
infra=(postgres nats prometheus alertmanager)
targets=("${services[@]}")
[ "$local_infra" = yes ] && targets+=("${infra[@]}")
if [ -n "$only" ]; then IFS=, read -r -a targets <<<"$only"; fi
logs=$(mktemp -d)
# While an image builds, say every 20 s which of its build steps is running (a first build spends
# minutes in a step, npm ci above all, and would otherwise be silent).
progress() { # target, log
  local last="" ticks=0 step
  while sleep 2; do
    ticks=$((ticks + 1))
    [ $((ticks % 10)) -eq 0 ] || continue
    step=$(grep -E '^(STEP|\[[0-9]+/[0-9]+\]) ' "$2" 2>/dev/null | tail -1 | cut -c1-100)
    if [ -n "$step" ] && [ "$step" != "$last" ]; then say "  $1: $step"; else say "  $1: still at ${step:-its first step}"; fi
    last=$step
  done
}
n=0
for target in "${targets[@]}"; do
  s=$(date +%s)
  n=$((n + 1))
  say "building localhost/wordgame/$target:$tag ($n of ${#targets[@]}; log $logs/$target.log)"
  progress "$target" "$logs/$target.log" &
  ticker=$!
  built=yes
  podman build --format docker --network host --build-arg "BASE_IMAGE=$base" --target "$target" \
    -t "localhost/wordgame/$target:$tag" -f Dockerfile . >"$logs/$target.log" 2>&1 || built=no
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  if [ "$built" = no ]; then
    tail -40 "$logs/$target.log"
    say "image $target failed to build (log: $logs/$target.log)"
    exit 1
  fi
  say "localhost/wordgame/$target:$tag built ($(($(date +%s) - s)) s)"
done
t2=$(date +%s)
say "images built in $((t2 - t1)) s"

# 5. No dev-only package in a product image; sizes.
for target in "${targets[@]}"; do
  case " ${services[*]} " in *" $target "*) node tools/build/dev-deps-check.mjs "localhost/wordgame/$target:$tag" ;; esac
done
for target in "${targets[@]}"; do
  printf '  %-45s %s\n' "localhost/wordgame/$target:$tag" "$(podman image inspect --format '{{.Size}}' "localhost/wordgame/$target:$tag" | awk '{printf "%.0f MB", $1 / 1000000}')"
done
if [ "$local_infra" = yes ]; then
  lines=(POSTGRES_IMAGE=localhost/wordgame/postgres:$tag NATS_IMAGE=localhost/wordgame/nats:$tag
    PROMETHEUS_IMAGE=localhost/wordgame/prometheus:$tag ALERTMANAGER_IMAGE=localhost/wordgame/alertmanager:$tag)
  if [ -n "$env_file" ]; then
    # It holds the deployment's secrets once they are written (deploy guide, step 4): a new file and
    # the copy made while rewriting it are for the owner only.
    umask 077
    touch "$env_file"
    for line in "${lines[@]}"; do
      grep -v "^${line%%=*}=" "$env_file" >"$env_file.tmp" || true
      echo "$line" >>"$env_file.tmp"
      cat "$env_file.tmp" >"$env_file" && rm -f "$env_file.tmp"
    done
    say "set ${lines[*]%%=*} in $env_file"
  else
    say "compose uses the local infrastructure images once your .env has:"
    printf '  %s\n' "${lines[@]}"
  fi
fi
[ "$tag" = latest ] || say "compose uses these images with WORDGAME_TAG=$tag in your .env"
rm -rf "$logs"
