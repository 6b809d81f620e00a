#!/usr/bin/env bash
# The Debian package, end to end: build it with scripts/package from this build
# tree, unpack it into a scratch root and check that every library resolves against the
# system, that the unpacked binary answers --version and runs against its own serve, that
# lintian reports no error or warning, that the man page lists exactly the flags --help lists,
# and that the bash completion loads and completes; then `apt-get install` it, check that it
# depends on exactly the packages of the libraries it links, run the installed binaries from
# /usr/bin, and `apt-get remove` it, checking that none of its files stay behind.
#   tests/package/package_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$1 build_dir=$2
# shellcheck source=/dev/null
source "$source_dir/scripts/lib/ports.sh"
# shellcheck source=/dev/null
source "$source_dir/scripts/lib/json.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d /tmp/uringload-package-XXXXXX)
pids=()
installed=0
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  # A test that failed between install and remove must not leave the package installed.
  [ "$installed" = 0 ] || apt-get remove -y -qq uringload >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

if dpkg-query -W -f='${Status}' uringload 2>/dev/null | grep -q "install ok installed"; then
  fail "a uringload package is already installed; this test installs and removes its own (apt-get remove uringload first)"
fi

deb=$("$source_dir/scripts/package" "$build_dir")
[ -f "$deb" ] || fail "scripts/package printed '$deb', not a file"
echo "package: $deb"

# 1. Unpacked into a scratch root: every shared library resolves against the system.
root="$work/root"
dpkg -x "$deb" "$root"
bin="$root/usr/bin/uringload"
ldd "$bin" >"$work/ldd"
! grep -q "not found" "$work/ldd" || fail "unresolved libraries: $(grep 'not found' "$work/ldd")"
version=$("$bin" --version)
# Matched in the shell, not through pipes: with pipefail, a reader that stops early (grep -q)
# can fail the writer with SIGPIPE.
version_pattern='^uringload [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-f]{12}'
[[ ${version%%$'\n'*} =~ $version_pattern ]] || fail "--version: $version"
[[ $version == *"liburing 2.3"* ]] || fail "--version names no liburing: $version"
[[ $version == *"OpenSSL 3"* ]] || fail "--version names no OpenSSL: $version"

# Runs `run` from $1 against `serve` from $1: exactly 2,000 answered requests on both sides.
run_against_serve() {
  local bin=$1 port serve_pid started_pid=""
  port=$(free_port)
  start_listening "$port" - "$bin" serve -q -t 1 --listen "127.0.0.1:$port" \
    --json "$work/serve.json" || fail "$bin serve did not start on its own port"
  serve_pid=$started_pid
  pids+=("$serve_pid")
  "$bin" run -q -n 2000 -c 20 -t 1 --json "$work/run.json" "http://127.0.0.1:$port/{i}"
  kill -INT "$serve_pid"
  wait "$serve_pid" || fail "$bin serve exited with $?"
  [ "$(json_get "$work/run.json" outcomes.ok)" = 2000 ] ||
    fail "$bin run: not 2000 ok: $(cat "$work/run.json")"
  [ "$(json_get "$work/serve.json" requests.answered)" = 2000 ] ||
    fail "$bin serve: not 2000 answered: $(cat "$work/serve.json")"
}
run_against_serve "$bin"

# cmake --install puts the same files under a prefix.
DESTDIR="$work/destdir" cmake --install "$build_dir" --prefix /usr/local >/dev/null
for path in bin/uringload sbin/uringload-tune-kernel share/man/man1/uringload.1.gz \
  share/man/man8/uringload-tune-kernel.8.gz share/bash-completion/completions/uringload \
  share/zsh/vendor-completions/_uringload share/uringload/grafana/uringload-dashboard.json \
  share/uringload/prometheus/prometheus.yml share/doc/uringload/copyright; do
  [ -f "$work/destdir/usr/local/$path" ] || fail "cmake --install did not install $path"
  cmp -s "$work/destdir/usr/local/$path" "$root/usr/$path" || [ "$path" = bin/uringload ] ||
    fail "$path differs between cmake --install and the package"
done

# 2. lintian: no error and no warning (info tags are justified in deploy/CMakeLists.txt).
lintian "$deb" >"$work/lintian" 2>&1 || true
if grep -E '^[EW]: ' "$work/lintian"; then fail "lintian reports the lines above"; fi

# 3. The man page lists, for the program and each command, exactly the flags --help lists.
flags_of_help() {  # Flags in `--help`: the names at the start of each option line.
  "$bin" "$@" --help | awk '/^  +-/ { split($1, names, ","); for (i in names) print names[i] }' |
    sort -u
}
flags_of_man() {  # Flags in the man page section $1: each .TP item's \fB...\fR names.
  zcat "$root/usr/share/man/man1/uringload.1.gz" | awk -v section="$1" '
    /^\.SH / { in_section = ($0 == ".SH " section); next }
    in_section && item { while (match($0, /\\fB\\-[^\\]*(\\-[^\\]*)*\\fR/)) {
        name = substr($0, RSTART + 3, RLENGTH - 6); gsub(/\\-/, "-", name); print name;
        $0 = substr($0, RSTART + RLENGTH) } item = 0 }
    in_section && /^\.TP/ { item = 1 }' | sort -u
}
for pair in ":OPTIONS" "run:RUN OPTIONS" "serve:SERVE OPTIONS" "merge:MERGE OPTIONS" \
  "compare:COMPARE OPTIONS" "search:SEARCH OPTIONS" "report:REPORT OPTIONS"; do
  command=${pair%%:*} section=${pair#*:}
  if [ -n "$command" ]; then flags_of_help "$command"; else flags_of_help; fi >"$work/help-flags"
  flags_of_man "$section" >"$work/man-flags"
  [ "$(wc -l <"$work/help-flags")" -gt 1 ] || fail "no flags parsed from '$command --help'"
  diff "$work/help-flags" "$work/man-flags" ||
    fail "man page section '$section' and '$command --help' list different flags (diff above)"
done
MANWIDTH=80 man --warnings -l "$root/usr/share/man/man1/uringload.1.gz" 2>"$work/man-warnings" >/dev/null
[ ! -s "$work/man-warnings" ] || fail "man warnings: $(cat "$work/man-warnings")"

# 4. The bash completion loads and completes subcommands, flags and enumerated values.
complete_words() {  # The completions bash offers after the words "$@" (the last one partial).
  bash -c 'source "$1"; shift; COMP_WORDS=(uringload "$@"); COMP_CWORD=$#; _uringload
           echo "${COMPREPLY[*]}"' _ "$root/usr/share/bash-completion/completions/uringload" "$@"
}
[ "$(complete_words "")" = "run serve merge compare search link report har2flow completion -h --help --version" ] ||
  fail "subcommands: '$(complete_words "")'"
[ "$(complete_words run --tls-max)" = "--tls-max-version" ] ||
  fail "run flags: '$(complete_words run --tls-max)'"
[ "$(complete_words run --tls-max-version "")" = "1.2 1.3" ] ||
  fail "enumerated values: '$(complete_words run --tls-max-version "")'"
[ "$(complete_words completion "")" = "bash zsh" ] || fail "completion shells"
zsh -n "$root/usr/share/zsh/vendor-completions/_uringload" || fail "the zsh completion does not parse"

# 5. apt-get install: Depends names exactly the packages of the libraries the binary needs.
export DEBIAN_FRONTEND=noninteractive
installed=1
apt-get install -y -qq --no-install-recommends "$deb" >"$work/apt" 2>&1 ||
  fail "apt-get install: $(cat "$work/apt")"
installed_files=$(dpkg-query -L uringload)
needed=$(objdump -p /usr/bin/uringload | awk '/NEEDED/ { print $2 }')
for lib in $needed; do
  # No early exit in awk: ldconfig would die of SIGPIPE and pipefail end the test.
  path=$(ldconfig -p | awk -v lib="$lib" '$1 == lib && /x86-64/ && !found { print $NF; found = 1 }')
  dpkg-query -S "$(readlink -f "$path")" 2>/dev/null || dpkg-query -S "$path"
done | awk -F: '{ print $1 }' | sort -u >"$work/needed-packages"
dpkg-query -W -f='${Depends}' uringload | tr ',' '\n' | awk '{ print $1 }' | sed 's/:.*//' |
  sort -u >"$work/declared"
diff "$work/needed-packages" "$work/declared" ||
  fail "Depends differs from the packages of the linked libraries (diff above)"
[ "$(command -v uringload)" = /usr/bin/uringload ] || fail "uringload is not /usr/bin/uringload"
run_against_serve /usr/bin/uringload
[ -x /usr/sbin/uringload-tune-kernel ] || fail "no /usr/sbin/uringload-tune-kernel"
man -w uringload | grep -q /usr/share/man/man1/uringload.1.gz || fail "man uringload not found"

# 6. apt-get remove leaves none of the package's files (it ships no configuration files).
apt-get remove -y -qq uringload >"$work/apt" 2>&1 || fail "apt-get remove: $(cat "$work/apt")"
installed=0
while read -r path; do
  [ -d "$path" ] && continue  # Shared directories (/usr/bin, /usr/share/man/man1) stay.
  [ ! -e "$path" ] || fail "left behind after remove: $path"
done <<<"$installed_files"
! dpkg-query -W -f='${Status}' uringload 2>/dev/null | grep -q "installed" ||
  fail "uringload is still installed"
[ ! -d /usr/share/uringload ] || fail "/usr/share/uringload is left behind"
echo "package test: ok"
