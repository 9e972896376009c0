#!/usr/bin/env bash
# CTest's fuzz.<target>.run: runs the fuzzer (the command after the first
# two arguments). On a finding it also writes DIR/TARGET-finding.txt: the
# sanitizer's or libFuzzer's report and each input it kept, in base64. The
# test command prints these files last (scripts/test.sh), so the end of a
# CI log says what was found even when the middle is cut.
#   run_fuzz.sh TARGET DIR FUZZER ARGS...
set -u
name=$1 dir=$2
shift 2
finding="$dir/$name-finding.txt"
rm -f "$finding"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" != 0 ]; then
  {
    echo "fuzz.$name.run exited $rc; its report:"
    pattern='^==[0-9]+==ERROR|runtime error:|^ALARM|out-of-memory|deadly signal|^SUMMARY'
    # No report known to this pattern: the end of the output, whatever it is.
    grep -q -E "$pattern" "$log" && grep -E -A40 "$pattern" "$log" | head -120 ||
      tail -60 "$log"
    for input in "$dir/$name-"{crash,leak,oom,timeout,slow-unit}-*; do
      [ -f "$input" ] || continue
      echo "input $input ($(stat -c %s "$input") bytes), base64:"
      base64 -w 76 "$input" | head -80
    done
  } > "$finding"
fi
exit "$rc"
