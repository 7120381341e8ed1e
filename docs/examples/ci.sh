#!/bin/sh
# Certify an implementation of Vitou, keep its reports, and fail on a regression
# against the last report. The POSIX shell form of the workflow in docs/how-to/ci.md.
#
#   VITOU_IMPL  the implementation's command line (required), e.g. "./my-adapter"
#   VITOU_OUT   where the reports go (default: vitou-results)
#   VITOU_LAST  the last report, to compare with (default: $VITOU_OUT/last.jsonl);
#               when it does not exist yet, there is nothing to compare with
#   VITOU_ARGS  more options for vitou certify, e.g. "--expect known-failures.yaml"
#   VITOU       the vitou command (default: vitou)
#
# Writes $VITOU_OUT/report.jsonl, junit.xml, certify.txt, report.html, badges/
# and diff.txt. When nothing regressed, the report becomes the last report.
# Exit status: 0 no regression; 1 a case that passed in the last report does
# not pass now; 2 (or more) the run or a report could not be made.
set -eu
set -f # VITOU_ARGS is split into words, and its globs (--only 'VT-00*') are for vitou, not for the shell

: "${VITOU_IMPL:?set VITOU_IMPL to the command line of your implementation}"
VITOU=${VITOU:-vitou}
out=${VITOU_OUT:-vitou-results}
last=${VITOU_LAST:-$out/last.jsonl}
mkdir -p "$out"

# Exit status 1 (not conformant) is a result: the comparison with the last report decides.
status=0
# shellcheck disable=SC2086 # VITOU and VITOU_ARGS are command lines
$VITOU certify --impl "$VITOU_IMPL" ${VITOU_ARGS:-} --force \
    --report "$out/report.jsonl" --junit "$out/junit.xml" >"$out/certify.txt" || status=$?
cat "$out/certify.txt"
if [ "$status" -gt 1 ]; then
    echo "ci.sh: vitou certify could not make its run (exit status $status)" >&2
    exit "$status"
fi

$VITOU report --format html --force -o "$out/report.html" "$out/report.jsonl"  # the page of the last run
$VITOU report --badge "$out/badges" "$out/report.jsonl" >/dev/null

if [ -f "$last" ]; then
    status=0
    $VITOU report --diff "$last" "$out/report.jsonl" >"$out/diff.txt" || status=$?
    cat "$out/diff.txt"
    if [ "$status" -ne 0 ]; then
        echo "ci.sh: against $last: regression (exit status $status); $last is kept" >&2
        exit "$status"
    fi
else
    echo "ci.sh: no last report at $last: nothing to compare with yet"
fi
cp "$out/report.jsonl" "$last"
echo "ci.sh: no regression; $last is now this report"
