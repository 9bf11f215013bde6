#!/usr/bin/env bash
# Installs Debian's Patroni, etcd and PostgreSQL 15 for the failover runs (reliability/ha), if
# missing. Called by the build (reliability module) and by .ci/run; needs root (or password-less
# sudo). Patroni and PostgreSQL then run as the postgres user, started by PatroniCluster.
set -euo pipefail
if [ -x /usr/bin/patroni ] && [ -x /usr/bin/etcd ] && [ -x /usr/lib/postgresql/15/bin/postgres ]; then
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif sudo -n true 2>/dev/null; then
  SUDO="sudo -n"
else
  echo "The failover smoke test needs Debian's patroni, etcd-server and postgresql-15 packages:" >&2
  echo "  sudo apt-get install patroni etcd-server postgresql-15" >&2
  echo "or skip it, and only it, with -Dleasehold.skipHaTest" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends patroni etcd-server postgresql-15 >/dev/null
# The packages may start their own etcd and PostgreSQL services where systemd runs; the cluster
# uses ports of its own, so they are left alone.
if [ ! -x /usr/bin/patroni ] || [ ! -x /usr/bin/etcd ] || [ ! -x /usr/lib/postgresql/15/bin/postgres ]; then
  echo "patroni, etcd or PostgreSQL 15 is still missing after the install" >&2
  exit 1
fi
patroni --version
