#!/usr/bin/env bash
# Debian packages agentrl's sandboxes and tests use: Debian's Python with numpy and sympy (model code imports them),
# bubblewrap (per-call namespaces for the local sandbox), docker.io (the Docker sandbox adapter), a compiler for the
# native npm packages (isolated-vm, better-sqlite3), Chromium for the dashboard's browser test and DejaVu fonts for
# chart text in PNGs. Run as root (or prefix with sudo).
set -euo pipefail
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  python3 python3-numpy python3-sympy bubblewrap docker.io make g++ chromium fonts-dejavu-core >/dev/null
echo "system packages: ok"
