#!/usr/bin/env bash
# The install step of the aoplint GitHub Action (action.yml), runnable anywhere:
# puts aoplint VERSION into INSTALL_DIR and that directory on the job's PATH
# ($GITHUB_PATH). INSTALL_MODE says how:
#   binary     (default) the release archive for this OS and architecture, verified
#              against the release's checksums.txt (SHA-256); a mismatch fails.
#              When the release has no archive for the runner, or cannot be
#              downloaded, it falls back to go install, if Go is there.
#   goinstall  go install github.com/aopkit/aopkit/cmd/aoplint@VERSION
#   none       use the aoplint already on the PATH
# An aoplint already in INSTALL_DIR (the action's cache) is used as it is.
#
#   AOPLINT_VERSION      a release tag, vX.Y.Z (required, never "latest")
#   INSTALL_MODE         binary, goinstall or none
#   INSTALL_DIR          where aoplint goes (default: $RUNNER_TOOL_CACHE/aoplint/VERSION)
#   AOPLINT_RELEASE_URL  where releases are (default: GitHub's releases of aopkit/aopkit):
#                        https://…, file://… or a directory; VERSION/FILE below it
#   AOPLINT_OS, AOPLINT_ARCH  the platform (default: from RUNNER_OS/RUNNER_ARCH, else uname)
#   AOPLINT_GO           the go command for go install (default: go)
set -euo pipefail

version="${AOPLINT_VERSION:-}"
mode="${INSTALL_MODE:-binary}"
github_path="${GITHUB_PATH:-/dev/null}"
releases="${AOPLINT_RELEASE_URL:-https://github.com/aopkit/aopkit/releases/download}"
gocmd="${AOPLINT_GO:-go}"

die() {
  echo "::error title=aoplint install::$*"
  echo "aoplint install: $*" >&2
  exit 1
}

case "$version" in
  v[0-9]*.*.*) ;;
  "") die "no version: set the action's version input to a release tag such as v0.1.0" ;;
  *) die "version $version is no release tag vX.Y.Z (\"latest\" is not taken: pin a release)" ;;
esac

if [ "$mode" = none ]; then
  command -v aoplint >/dev/null || die "install-mode none, but no aoplint on the PATH"
  exit 0
fi

dir="${INSTALL_DIR:-${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/aoplint/$version}"
mkdir -p "$dir"
exe=aoplint

os="${AOPLINT_OS:-}"
if [ -z "$os" ]; then
  case "${RUNNER_OS:-$(uname -s)}" in
    Linux | linux) os=linux ;;
    macOS | Darwin | darwin) os=darwin ;;
    Windows | MINGW* | MSYS* | CYGWIN*) os=windows ;;
    *) os=unknown ;;
  esac
fi
arch="${AOPLINT_ARCH:-}"
if [ -z "$arch" ]; then
  case "${RUNNER_ARCH:-$(uname -m)}" in
    X64 | x86_64 | amd64) arch=amd64 ;;
    ARM64 | aarch64 | arm64) arch=arm64 ;;
    *) arch=unknown ;;
  esac
fi
[ "$os" = windows ] && exe=aoplint.exe

done_() {
  echo "$dir" >>"$github_path"
  echo "aoplint install: $("$dir/$exe" --version 2>/dev/null || echo "$version") in $dir"
  exit 0
}

if [ -x "$dir/$exe" ]; then
  done_ # restored from the cache
fi

goinstall() {
  command -v "$gocmd" >/dev/null || die "$1, and Go is not installed for go install"
  echo "aoplint install: $1: go install github.com/aopkit/aopkit/cmd/aoplint@$version"
  GOBIN="$dir" "$gocmd" install "github.com/aopkit/aopkit/cmd/aoplint@$version"
  [ -x "$dir/$exe" ] || die "go install left no $exe in $dir"
  done_
}

if [ "$mode" = goinstall ]; then
  goinstall "install-mode goinstall"
fi
[ "$mode" = binary ] || die "unknown install-mode $mode: want binary, goinstall or none"

# fetch NAME TARGET: a file of the release.
fetch() {
  local src="$releases/$version/$1"
  case "$src" in
    http://* | https://* | file://*) curl -fsSL --retry 3 -o "$2" "$src" 2>/dev/null ;;
    *) cp "$src" "$2" 2>/dev/null ;;
  esac
}

sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

ext=tar.gz
[ "$os" = windows ] && ext=zip
archive="aoplint_${version#v}_${os}_${arch}.$ext"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [ "$os" = unknown ] || [ "$arch" = unknown ]; then
  goinstall "no release archive for this platform (${RUNNER_OS:-$(uname -s)} ${RUNNER_ARCH:-$(uname -m)})"
fi
if ! fetch checksums.txt "$tmp/checksums.txt" || ! fetch "$archive" "$tmp/$archive"; then
  goinstall "could not download $archive of release $version from $releases"
fi
want="$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/checksums.txt")"
[ -n "$want" ] || die "checksums.txt of $version does not list $archive"
have="$(sha256 "$tmp/$archive")"
[ "$have" = "$want" ] || die "checksum mismatch for $archive: SHA-256 $have, checksums.txt says $want"
mkdir -p "$tmp/x"
if [ "$ext" = zip ]; then
  if command -v unzip >/dev/null; then
    unzip -q "$tmp/$archive" -d "$tmp/x"
  else
    powershell -NoProfile -Command "Expand-Archive -LiteralPath '$tmp/$archive' -DestinationPath '$tmp/x'"
  fi
else
  tar -xzf "$tmp/$archive" -C "$tmp/x"
fi
[ -f "$tmp/x/$exe" ] || die "$archive has no $exe"
mv -f "$tmp/x/$exe" "$dir/$exe"
chmod +x "$dir/$exe"
done_
