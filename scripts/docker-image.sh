#!/usr/bin/env bash
# Builds the local test image for agentrl's Docker sandbox without any registry.
#
# The image is a tiny root filesystem (empty /usr mount point, merged-/usr symlinks, /etc/alternatives,
# /etc/ld.so.cache, a nobody user) imported with `docker import`. Python, numpy and sympy come from
# the HOST's /usr, bind-mounted read-only at run time (dockerSandbox({ binds: ['/usr:/usr:ro'] })).
# Host prerequisites (Debian/Ubuntu): apt-get install -y docker.io python3-numpy python3-sympy
#
# Usage: scripts/docker-image.sh [tag]      (default tag: agentrl-sandbox:local; env IMAGE overrides)
# Idempotent: rebuilds only when the tag is missing or FORCE=1.
set -euo pipefail

TAG="${1:-${IMAGE:-agentrl-sandbox:local}}"

if ! docker info >/dev/null 2>&1; then
  echo "docker-image.sh: no docker daemon reachable (DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock})" >&2
  exit 2
fi
if [[ "${FORCE:-0}" != "1" ]] && docker image inspect "$TAG" >/dev/null 2>&1; then
  echo "docker-image.sh: $TAG already present"
  exit 0
fi
if ! /usr/bin/python3 -c 'import numpy, sympy' >/dev/null 2>&1; then
  echo "docker-image.sh: host /usr/bin/python3 lacks numpy/sympy (apt-get install -y python3-numpy python3-sympy)" >&2
  exit 3
fi

ROOT="$(mktemp -d)"
trap 'rm -rf "$ROOT"' EXIT
mkdir -p "$ROOT"/{usr,tmp,proc,sys,dev,etc,opt,work}
chmod 1777 "$ROOT/tmp"
ln -s usr/bin "$ROOT/bin"
ln -s usr/lib "$ROOT/lib"
[[ -e /lib64 ]] && ln -s usr/lib64 "$ROOT/lib64"
# /sbin is a real directory: Docker bind-mounts its init at /sbin/docker-init, which must not resolve into the read-only /usr bind.
mkdir -p "$ROOT/sbin"
# Shared-library resolution (ld.so.cache) and Debian's alternatives links (libblas.so.3 → /etc/alternatives/…).
cp -a /etc/alternatives "$ROOT/etc/alternatives"
[[ -f /etc/ld.so.cache ]] && cp /etc/ld.so.cache "$ROOT/etc/ld.so.cache"
[[ -d /etc/python3 ]] && cp -a /etc/python3 "$ROOT/etc/python3"
for d in /etc/python3.*; do [[ -d "$d" ]] && cp -a "$d" "$ROOT/etc/"; done
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' > "$ROOT/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$ROOT/etc/group"
printf 'LANG=C.UTF-8\n' > "$ROOT/etc/default-locale"

tar -C "$ROOT" --numeric-owner --owner=0 --group=0 -cf - . \
  | docker import \
      --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
      --change 'ENV LANG=C.UTF-8' \
      --change 'USER 65534:65534' \
      --change 'WORKDIR /tmp' \
      --change 'CMD ["/usr/bin/python3"]' \
      - "$TAG" >/dev/null
echo "docker-image.sh: built $TAG (run with binds ['/usr:/usr:ro'])"
