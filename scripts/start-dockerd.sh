#!/usr/bin/env bash
# Starts a Docker engine in the background when none answers (CI and fresh machines run none), then waits for it.
set -uo pipefail
if docker info >/dev/null 2>&1; then echo "docker: already running"; exit 0; fi
command -v dockerd >/dev/null || { echo "docker: dockerd not installed"; exit 1; }
nohup dockerd >/tmp/dockerd.log 2>&1 &
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then echo "docker: started"; exit 0; fi
  sleep 1
done
echo "docker: dockerd did not answer within 60 s (see /tmp/dockerd.log)"; exit 1
