#!/bin/bash
# Server instructions per statement, counted with pgbench instead of a JDBC loop: the same server
# under valgrind as instructions.sh says (port 5493, autovacuum off so that only backends exit),
# the rows of setup.sql. pgbench -M prepared runs the file 200 and then 2,200 times on one
# connection; the difference between the two backends' counts, divided by 2,000, is one call.
# Usage: instructions-pgbench.sh FILE.sql -> "FILE.sql instructions"
run() {
  before=$(ls /dev/shm/cg | sort)
  pgbench -n -h /tmp -p 5493 -U postgres -M prepared -c 1 -t "$2" -f "$1" postgres >/dev/null 2>&1
  prev=""; stable=0
  for _ in $(seq 1 200); do
    new=$(comm -13 <(echo "$before") <(ls /dev/shm/cg | sort))
    sizes=$(for x in $new; do awk '/^summary:/{print $2}' "/dev/shm/cg/$x"; done | sort -n | tr '\n' ' ')
    if [ -n "$new" ] && [ "$sizes" = "$prev" ]; then stable=$((stable+1)); else stable=0; fi
    prev=$sizes
    [ $stable -ge 6 ] && { echo "$sizes" | tr ' ' '\n' | grep . | tail -1; return; }
    sleep 0.5
  done
  echo "none" >&2; exit 1
}
a=$(run "$1" 200); b=$(run "$1" 2200); echo "$(basename $1) $(( (b - a) / 2000 ))"
