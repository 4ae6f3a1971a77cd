#!/usr/bin/env bash
# One timed stage of `make test`: `Tools/stage.sh NAME COMMAND...` runs COMMAND and appends its name, seconds and
# result to $STAGES (.build/stages.tsv); when it fails, the table so far is printed before make stops.
# `Tools/stage.sh --reset` empties the list, `Tools/stage.sh --table` prints it with the total.
set -uo pipefail
file="${STAGES:-.build/stages.tsv}"

table() {
    echo
    echo "| stage | seconds | result |"
    echo "|---|---|---|"
    awk -F'\t' '{ printf "| %s | %d | %s |\n", $1, $2, $3; total += $2 } END { printf "| all | %d (%.1f min) | |\n", total, total / 60 }' "$file"
}

case "${1:-}" in
--reset)
    mkdir -p "$(dirname "$file")"
    : >"$file"
    exit 0
    ;;
--table)
    table
    exit 0
    ;;
"")
    echo "usage: Tools/stage.sh NAME COMMAND... | --reset | --table" >&2
    exit 2
    ;;
esac

name="$1"
shift
start=$(date +%s%N)
"$@"
status=$?
seconds=$((($(date +%s%N) - start + 500000000) / 1000000000))
if [ "$status" -eq 0 ]; then result=passed; else result="failed (exit $status)"; fi
printf '%s\t%s\t%s\n' "$name" "$seconds" "$result" >>"$file"
[ "$status" -eq 0 ] || table
exit "$status"
