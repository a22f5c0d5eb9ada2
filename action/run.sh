#!/usr/bin/env bash
# The lint step of the aoplint GitHub Action (action.yml), runnable anywhere: it reads
# the action's inputs from INPUT_* variables and GitHub's files from GITHUB_* ones,
# and never fails itself: it writes aoplint's exit code to $GITHUB_OUTPUT (exit-code)
# for the action's last step, so that the SARIF upload runs first.
#
#   INPUT_PATHS        files, directories or globs, separated by spaces or newlines (default .)
#   INPUT_FORMAT       the log's format (default text)
#   INPUT_OUTPUT_FILE  write that output to this file instead of the log
#   INPUT_FAIL_ON      error (default) or warning
#   INPUT_ANNOTATIONS  true: GitHub annotations (workflow commands) on stdout
#   INPUT_SUMMARY      true: a Markdown summary appended to $GITHUB_STEP_SUMMARY
#   INPUT_UPLOAD_SARIF true: a SARIF report in $RUNNER_TEMP, its path as output sarif-file
#   INPUT_ARGS         more aoplint flags
#   AOPLINT            the aoplint binary (default: aoplint on the PATH)
set -uo pipefail

aoplint="${AOPLINT:-aoplint}"
format="${INPUT_FORMAT:-text}"
fail_on="${INPUT_FAIL_ON:-error}"
tmp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
out_file="${INPUT_OUTPUT_FILE:-}"
github_output="${GITHUB_OUTPUT:-/dev/null}"

read -r -d '' -a paths <<<"${INPUT_PATHS:-.}"
read -r -d '' -a extra <<<"${INPUT_ARGS:-}"
if [ "${#paths[@]}" -eq 0 ]; then
  paths=(.)
fi

lint() { "$aoplint" --fail-on "$fail_on" "${extra[@]}" "$@" -- "${paths[@]}"; }

# The run whose exit code is the verdict: the requested format, to the log or a file.
if [ -n "$out_file" ]; then
  lint --format "$format" >"$out_file"
else
  lint --format "$format"
fi
code=$?
echo "exit-code=$code" >>"$github_output"

if [ "$code" -eq 2 ]; then
  echo "::error title=aoplint::aoplint could not lint (exit 2): see the log above"
fi
if [ "${INPUT_ANNOTATIONS:-true}" = true ] && [ "$format" != github ] && [ "$code" -ne 2 ]; then
  lint --format github 2>/dev/null
fi
if [ "${INPUT_SUMMARY:-true}" = true ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ "$code" -ne 2 ]; then
  lint --format markdown >>"$GITHUB_STEP_SUMMARY" 2>/dev/null
fi
if [ "${INPUT_UPLOAD_SARIF:-false}" = true ] && [ "$code" -ne 2 ]; then
  sarif="$tmp/aoplint.sarif"
  lint --format sarif >"$sarif" 2>/dev/null
  echo "sarif-file=$sarif" >>"$github_output"
fi
exit 0
