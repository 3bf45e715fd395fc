# Sourced by .ci/run: makes `node` on PATH a Node.js that satisfies package.json's engines.node
# (">=22.13"). When the machine's is older (Debian's is 20), it installs npm's `node` package for
# that major version under a prefix of its own and puts the prefix's bin first on PATH. A plain
# `npm install -g node@22` would try to overwrite /usr/bin/node, hence the prefix. The package's
# preinstall script fetches the platform's binary with a nested `npm install`; npm 11 warns that
# it is not in an allow-list, but `--allow-scripts=node` would be passed on to that nested,
# project-scoped install, which refuses it (EALLOWSCRIPTS).
#   KAIWA_NODE_PREFIX  where to install it (default /opt/node22)

# The minimum version from package.json, read without Node.js: the machine's may be too old to trust.
kaiwa_required_node() {
  sed -n 's/^ *"node": *">= *\([0-9][0-9.]*\)".*/\1/p' package.json | head -n 1
}

# True when the `node` on PATH is at least version $1.
kaiwa_node_satisfies() {
  local current
  current="$(node -v 2>/dev/null)" || return 1
  current="${current#v}"
  [ "$(printf '%s\n%s\n' "$1" "$current" | sort -V | head -n 1)" = "$1" ]
}

kaiwa_ensure_node() {
  local required prefix major
  required="$(kaiwa_required_node)"
  if [ -z "$required" ]; then
    echo "ensure-node: package.json has no engines.node of the form \">=X.Y\"" >&2
    return 1
  fi
  kaiwa_node_satisfies "$required" && return 0

  prefix="${KAIWA_NODE_PREFIX:-/opt/node22}"
  major="${required%%.*}"
  export PATH="$prefix/bin:$PATH"
  hash -r
  # Installed by an earlier run: use it as it is.
  kaiwa_node_satisfies "$required" && return 0

  if ! command -v npm >/dev/null 2>&1; then
    echo "ensure-node: Node.js >= $required is needed, and there is no npm to install it with" >&2
    return 1
  fi
  echo "Node.js $(node -v 2>/dev/null || echo 'missing') is older than $required: installing node@$major into $prefix"
  npm install -g --prefix "$prefix" --no-audit --no-fund "node@$major" >/dev/null
  hash -r
  if ! kaiwa_node_satisfies "$required"; then
    echo "ensure-node: node@$major gave no Node.js >= $required (node on PATH: $(command -v node || echo none) $(node -v 2>/dev/null))" >&2
    return 1
  fi
}

kaiwa_ensure_node
