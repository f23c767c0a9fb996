#!/usr/bin/env bash
# Installs what Ember needs on a fresh Debian 12 machine (as root, or with sudo).
# Idempotent: packages already present are skipped by apt.
set -euo pipefail
pkgs=(cmake g++ make libopenblas-dev libfmt-dev libgtest-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev gnuplot-nox graphviz)
# Clang 14 for `test.sh --clang` and `fuzz.sh`: its OpenMP runtime, and libFuzzer with the sanitizer runtimes.
pkgs+=(clang libomp-14-dev libclang-rt-14-dev)
# ember::distributed: Gloo (collectives), Open MPI for the mpi backend and its mpirun test, and
# OpenSSL's libcrypto for the TCP store's handshake (HMAC-SHA256 of a shared secret).
pkgs+=(libgloo-dev libopenmpi-dev openmpi-bin libssl-dev)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi
