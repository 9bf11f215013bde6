#!/bin/bash
# Instructions per attempt of one server backend (docs/performance.md, "Instructions per attempt").
# Needs valgrind and a PostgreSQL 15 data directory with the lease schema, 1,000 rows
# ('peers', 'key-0' .. 'key-999', released), a row ('peers', 'held') held for a day, and ShedLock's
# table with 'peers-key-N' and 'held' likewise; its server started under
#   valgrind --tool=cachegrind --cache-sim=no --trace-children=yes \
#     --cachegrind-out-file=/dev/shm/cg/cg.%p postgres -D DATA -p 5493 -k /tmp
# and the harness compiled: javac -d /tmp/instr -cp "$CP" Instructions.java (copied from the .txt).
# Usage: FORMS=DIR CP=... instructions.sh FORM REFUSE(0|1) -> instructions per attempt
set -euo pipefail
run() { # N -> the largest instruction count among the backends that ended during the run
  before=$(ls /dev/shm/cg | sort)
  java ${JOPTS:-} -Dforms="$FORMS" -cp "/tmp/instr:$CP" Instructions \
    jdbc:postgresql://localhost:5493/postgres "$1" "$2" "$3" >/dev/null
  for _ in $(seq 1 100); do
    new=$(comm -13 <(echo "$before") <(ls /dev/shm/cg | sort))
    best=$(for x in $new; do awk '/^summary:/{print $2}' "/dev/shm/cg/$x"; done | sort -n | tail -1)
    [ -n "$best" ] && { echo "$best"; return; }
    sleep 0.3
  done
  echo "no backend's count appeared" >&2; exit 1
}
a=$(run "$1" 200 "$2"); b=$(run "$1" 2200 "$2")
echo $(( (b - a) / 2000 ))
