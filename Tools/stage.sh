#!/usr/bin/env bash
# One timed stage of `make test`: `Tools/stage.sh NAME COMMAND...` runs COMMAND and appends its name, seconds and
# result to $STAGES (.build/stages.tsv); when it fails, the table so far is printed before make stops. With
# STAGE_OUTPUT=buffered, COMMAND's output is held and printed when it ends (for stages that run beside others).
# `Tools/stage.sh --reset` empties the list and notes the start, `Tools/stage.sh --table` prints it with the time since
# the start (stages that run beside the build overlap it, so the total is less than the sum).
set -uo pipefail
file="${STAGES:-.build/stages.tsv}"

table() {
    local wall=$(($(date +%s) - $(cat "$file.start" 2>/dev/null || date +%s)))
    echo
    echo "| stage | seconds | result |"
    echo "|---|---|---|"
    awk -F'\t' -v wall="$wall" '{ printf "| %s | %d | %s |\n", $1, $2, $3; sum += $2 }
        END { printf "| all, start to end | %d (%.1f min) | (the stages add up to %d s) |\n", wall, wall / 60, sum }' "$file"
}

case "${1:-}" in
--reset)
    mkdir -p "$(dirname "$file")"
    : >"$file"
    date +%s >"$file.start"
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
if [ "${STAGE_OUTPUT:-}" = buffered ]; then
    # Run beside another lane: the stage's output is printed in one piece when it ends.
    log=$(mktemp)
    "$@" >"$log" 2>&1
    status=$?
    { echo "--- $name"; cat "$log"; } 2>/dev/null
    rm -f "$log"
else
    "$@"
    status=$?
fi
seconds=$((($(date +%s%N) - start + 500000000) / 1000000000))
if [ "$status" -eq 0 ]; then result=passed; else result="failed (exit $status)"; fi
printf '%s\t%s\t%s\n' "$name" "$seconds" "$result" >>"$file"
[ "$status" -eq 0 ] || table
exit "$status"
