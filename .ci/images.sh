#!/usr/bin/env bash
# Builds every image the compose file builds, with podman from the local debootstrap base
# (.ci/base-image.sh), then runs the compose-derived smoke test (.ci/smoke.mjs) against them. Prints
# the base, build and smoke durations. Podman on this kind of machine needs: runc (crun refuses the
# hybrid cgroups), default_ulimits no higher than conmon's own limits, --network host for builds,
# slirp4netns for running, catatonit for the pods' pause image (a Recommends of podman, so not there
# with --no-install-recommends), --format docker (OCI drops HEALTHCHECK). Run as root; exits non-zero on failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source tools/node/ensure-node.sh
ensure_node >&2

need=()
for tool in podman runc slirp4netns debootstrap fuse-overlayfs newuidmap catatonit; do command -v "$tool" >/dev/null || need+=("$tool"); done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends podman runc slirp4netns debootstrap fuse-overlayfs uidmap catatonit >/dev/null
fi
cache="$(wordgame_ci_cache)/images"
mkdir -p "$cache"
export CONTAINERS_CONF="$cache/containers.conf"
cat >"$CONTAINERS_CONF" <<CONF
[containers]
default_ulimits = ["nofile=16384:16384", "nproc=16384:16384"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF

t0=$(date +%s)
base=$(bash .ci/base-image.sh)
t1=$(date +%s)
echo "base image $base ($((t1 - t0)) s)"

# Every service of docker-compose.yml with a build section: name, dockerfile.
mapfile -t builds < <(node -e '
  const { parse } = require("yaml");
  const c = parse(require("fs").readFileSync("docker-compose.yml", "utf8"));
  for (const [name, s] of Object.entries(c.services)) if (s.build) console.log(`${name} ${s.build.dockerfile ?? "Dockerfile"}`);
')
tag=smoke
for entry in "${builds[@]}"; do
  read -r name dockerfile <<<"$entry"
  s=$(date +%s)
  if ! podman build -q --format docker --network host --build-arg "BASE_IMAGE=$base" -t "localhost/wordgame/$name:$tag" -f "$dockerfile" . >"$cache/build-$name.log" 2>&1; then
    tail -30 "$cache/build-$name.log"
    echo "image $name failed to build"
    exit 1
  fi
  echo "image $name built ($(($(date +%s) - s)) s): node $(podman run --rm --network none "localhost/wordgame/$name:$tag" node --version 2>/dev/null)"
done
t2=$(date +%s)
echo "images built in $((t2 - t1)) s"

node .ci/smoke.mjs "$tag"
t3=$(date +%s)
echo "durations: base $((t1 - t0)) s, images $((t2 - t1)) s, smoke $((t3 - t2)) s, total $((t3 - t0)) s"
