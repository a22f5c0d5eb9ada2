#!/usr/bin/env bash
# The lint step of the aoplint GitHub Action (action.yml), runnable anywhere: it reads
# the action's inputs from INPUT_* variables and GitHub's files from GITHUB_* ones,
# and never fails itself: it writes aoplint's exit code to $GITHUB_OUTPUT (exit-code)
# for the action's last step, so that the SARIF upload runs first.
#
# aoplint runs once and writes every output the step needs (--output): the log,
# annotations, the step summary and SARIF. Flags the user did not set are not
# passed, so .aoplint.yaml (fail-on, format, baseline, rules) is honoured.
#
#   INPUT_WORKING_DIRECTORY  run aoplint there (default .): its .aoplint.yaml applies,
#                            paths are relative to it
#   INPUT_PATHS        files, directories or globs, separated by spaces or newlines (default .)
#   INPUT_FORMAT       the log's format (default: the configuration's, else text)
#   INPUT_OUTPUT_FILE  write the output in INPUT_FORMAT (default text) to this file
#   INPUT_FAIL_ON      error or warning (default: the configuration's, else error)
#   INPUT_ONLY_NEW_ISSUES  true: only findings on lines changed since INPUT_NEW_FROM_REV
#   INPUT_NEW_FROM_REV the base revision (the pull request's base, a push's before)
#   INPUT_ANNOTATIONS  true: GitHub annotations (workflow commands) on stdout
#   INPUT_SUMMARY      true: a Markdown summary appended to $GITHUB_STEP_SUMMARY
#   INPUT_UPLOAD_SARIF true: a SARIF report in $RUNNER_TEMP, its path as output sarif-file
#   INPUT_ARGS         more aoplint flags
#   AOPLINT            the aoplint binary (default: aoplint on the PATH)
set -uo pipefail

aoplint="${AOPLINT:-aoplint}"
format="${INPUT_FORMAT:-}"
fail_on="${INPUT_FAIL_ON:-}"
tmp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
mkdir -p "$tmp"
tmp="$(cd "$tmp" && pwd)"
out_file="${INPUT_OUTPUT_FILE:-}"
github_output="${GITHUB_OUTPUT:-/dev/null}"
wd="${INPUT_WORKING_DIRECTORY:-.}"

if ! cd "$wd"; then
  echo "exit-code=2" >>"$github_output"
  echo "::error title=aoplint::working-directory $wd does not exist"
  exit 0
fi
# Annotations name files relative to the repository: a working directory below it
# prefixes them.
prefix=""
if [ -n "${GITHUB_WORKSPACE:-}" ]; then
  here="$(pwd -P)"
  top="$(cd "$GITHUB_WORKSPACE" && pwd -P)"
  case "$here" in "$top"/*) prefix="${here#"$top"/}/" ;; esac
fi

read -r -d '' -a paths <<<"${INPUT_PATHS:-.}"
read -r -d '' -a extra <<<"${INPUT_ARGS:-}"
if [ "${#paths[@]}" -eq 0 ]; then
  paths=(.)
fi

args=()
[ -n "$fail_on" ] && args+=(--fail-on "$fail_on")
if [ -n "$out_file" ]; then
  args+=(--output "${format:-text}=$out_file")
elif [ -n "$format" ]; then
  args+=(--format "$format")
fi
annotations="$tmp/aoplint-annotations.txt"
summary="$tmp/aoplint-summary.md"
sarif="$tmp/aoplint.sarif"
rm -f "$annotations" "$summary" "$sarif"
want_annotations=false
if [ "${INPUT_ANNOTATIONS:-true}" = true ] && { [ "$format" != github ] || [ -n "$out_file" ]; }; then
  want_annotations=true
  args+=(--output "github=$annotations")
fi
if [ "${INPUT_SUMMARY:-true}" = true ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  args+=(--output "markdown=$summary")
fi
if [ "${INPUT_UPLOAD_SARIF:-false}" = true ]; then
  args+=(--output "sarif=$sarif")
fi
if [ "${INPUT_ONLY_NEW_ISSUES:-false}" = true ]; then
  rev="${INPUT_NEW_FROM_REV:-}"
  if [ -z "$rev" ] || [ -z "${rev//0/}" ]; then
    echo "::warning title=aoplint::only-new-issues: no base revision for this event (a pull request's base or a push's before): every finding is reported"
  else
    # A shallow checkout lacks the base: fetch that one commit.
    if ! git cat-file -e "$rev^{commit}" 2>/dev/null; then
      git fetch --no-tags --quiet --depth=1 origin "$rev" || true
    fi
    args+=(--new-from-rev "$rev")
  fi
fi

# ${a[@]+"${a[@]}"}: an empty array under set -u in bash 3.2 (macOS).
"$aoplint" ${args[@]+"${args[@]}"} ${extra[@]+"${extra[@]}"} -- "${paths[@]}"
code=$?
echo "exit-code=$code" >>"$github_output"

if [ "$code" -eq 2 ]; then
  echo "::error title=aoplint::aoplint could not lint (exit 2): see the log above"
fi
if [ "$want_annotations" = true ] && [ -s "$annotations" ]; then
  if [ -n "$prefix" ]; then
    sed -E "s|^(::[a-z]+ file=)|\\1$prefix|" "$annotations"
  else
    cat "$annotations"
  fi
fi
if [ -s "$summary" ]; then
  cat "$summary" >>"$GITHUB_STEP_SUMMARY"
fi
if [ -s "$sarif" ]; then
  echo "sarif-file=$sarif" >>"$github_output"
fi
exit 0
