#!/usr/bin/env bash
# run_fuzz.sh keeps a finding where the test command prints it: a fuzzer
# that fails leaves TARGET-finding.txt with its report and the kept input
# (base64 that decodes to the input), or the end of its output when it
# printed no report the wrapper knows; one that passes leaves none, and
# removes a stale one.
#   run_fuzz_test.sh RUN_FUZZ
set -u
run=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
printf 'xpu.kernel @k\0\1\2' > "$dir/input"
"$run" module "$dir" bash -c "echo '==7==ERROR: AddressSanitizer: heap-use-after-free'
  echo '    #0 0x1 in f'; cp '$dir/input' '$dir/module-crash-1234'; exit 3" > /dev/null
[ $? = 3 ] || fail "the fuzzer's exit status was not passed on"
finding="$dir/module-finding.txt"
[ -f "$finding" ] || fail "no finding written"
grep -q "exited 3" "$finding" || fail "the finding does not give the exit status"
grep -q "heap-use-after-free" "$finding" || fail "the finding lacks the report"
sed -n '/^input .*module-crash-1234/,$p' "$finding" | tail -n +2 | base64 -d > "$dir/decoded" ||
  fail "the kept input is not in base64"
cmp -s "$dir/input" "$dir/decoded" || fail "the kept input does not decode to the input"
# A failure with no report the wrapper knows keeps the end of the output.
"$run" module "$dir" bash -c 'seq 1 100; echo last words; exit 1' > /dev/null
grep -q "last words" "$finding" || fail "an unknown failure's output was not kept"
"$run" module "$dir" true > /dev/null || fail "a passing fuzzer failed"
[ ! -f "$finding" ] || fail "a stale finding was left"
echo "ok: a finding is kept with its report and input, and cleared by a clean run"
