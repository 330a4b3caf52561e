#!/usr/bin/env bash
# Proves that the README's two commands need nothing set up beforehand: a git clone of the current
# commit (not this work tree, nor its node_modules) runs `npm ci && npm test` inside a container from
# the Debian base image (tools/images/base-debian.sh: debootstrap minbase plus the registry's Node),
# which has no PostgreSQL, NATS, Chromium, flatc or openssl. The test command's set-up has to
# install or start each of them itself (apt-get from Debian, PostgreSQL from the npm registry).
#
#   tools/test/fresh-container.sh [nx arguments, e.g. -p testkit gateway]   (run as root)
#
# The container has its own network namespace (slirp4netns): it reaches the npm registry and
# Debian's mirror, but not this machine's PostgreSQL or NATS on loopback. kubectl (1.27+) is in
# neither Debian bookworm nor the npm registry, so the host's static binary is lent read-only as
# KUBECTL when it has one (FRESH_KUBECTL=none lends nothing: the set-up's line then names kubectl).
# The repository's ../shared (the spec and the design the docs link to) is mounted beside the clone,
# as CI has it. --privileged: the bench's CPU-budget test makes a cgroup, as root on a machine may, and podman
# mounts /sys/fs/cgroup read-only otherwise; the network namespace stays the container's own.
# Prints the container's output and exits with its status; the clone is removed afterwards.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
[ "$(id -u)" -eq 0 ] || { echo "run as root (podman, and apt-get inside the container)" >&2; exit 1; }
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "fresh-container: uncommitted changes are not in the clone; the run tests $(git rev-parse --short HEAD)" >&2
fi

# podman with this host's settings and the Debian base (the image tool's first steps).
base=$(bash tools/images/images.sh --base debian --base-only | tail -1)
commit=$(git rev-parse HEAD)
work=$(mktemp -d /var/tmp/wordgame-fresh.XXXXXX)
trap 'rm -rf "$work"' EXIT
git clone --quiet --no-checkout "$root" "$work/repo"
git -C "$work/repo" checkout --quiet --detach "$commit"
chmod 755 "$work" "$work/repo"

lend=()
kubectl_path=${FRESH_KUBECTL:-$(command -v kubectl || true)}
if [ -n "$kubectl_path" ] && [ "$kubectl_path" != none ]; then
  lend=(-v "$(readlink -f "$kubectl_path"):/opt/lent/kubectl:ro" -e KUBECTL=/opt/lent/kubectl)
fi

shared=()
[ -d "$root/../shared" ] && shared=(-v "$(cd "$root/../shared" && pwd):/shared:ro")

args=$(printf ' %q' "$@")
echo "fresh-container: $commit in $base${lend:+, kubectl lent from $kubectl_path}; npm test --${args:- (every project)}"
start=$(date +%s)
set +e
podman run --rm --privileged --network slirp4netns --shm-size 1g -v "$work/repo:/src" -w /src "${shared[@]}" "${lend[@]}" "$base" bash -c '
  set -euo pipefail
  echo "inside: node $(node --version), npm $(npm --version); before npm ci:"
  for p in psql postgres pg_ctl nats-server chromium flatc openssl jq; do
    printf "  %-12s %s\n" "$p" "$(command -v "$p" || echo absent)"
  done
  ls /usr/lib/postgresql 2>/dev/null && echo "  unexpected: /usr/lib/postgresql exists"
  (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null && echo "  unexpected: something answers on 127.0.0.1:5432" || echo "  nothing on 127.0.0.1:5432"
  npm ci --no-audit --no-fund
  npm test --'"$args"
status=$?
set -e
echo "fresh-container: exit $status after $(($(date +%s) - start)) s"
exit "$status"
