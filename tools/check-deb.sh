#!/usr/bin/env bash
# CI: builds the .deb (tools/build-deb.sh, in the release profile unless a profile is given:
# the dist profile's LTO build is too slow for CI), installs it with dpkg -i, plays a short GTP
# game with /usr/bin/tengen, checks the version, man page, completions, example config,
# systemd unit (installed, not enabled), copyright, licenses and maintainer are in place, then
# removes the package again, checks it is gone, and purges it. Installs cargo-deb when it is
# missing. Run as root (or with sudo at hand).
set -euo pipefail
cd "$(dirname "$0")/.."

profile="${1:-release}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
fail() {
    echo "check-deb: $*" >&2
    exit 1
}

if ! cargo deb --version >/dev/null 2>&1; then cargo install cargo-deb --locked; fi
deb="$(tools/build-deb.sh "$profile" | tail -n 1)"
[ -f "$deb" ] || fail "tools/build-deb.sh printed no .deb ($deb)"

$sudo dpkg -i "$deb"
# dpkg -r leaves the package's state (the unit masked, as debhelper does); purging clears it.
trap '$sudo dpkg --purge tengen >/dev/null' EXIT

# A short game: every answer a success, the move a vertex of a 9x9 board (or pass).
answer="$(printf 'boardsize 9\ngenmove b\nquit\n' | /usr/bin/tengen gtp --level easy)"
expected=$'^= \n\n= ([A-HJ][1-9]|pass)\n\n= $'
[[ "$answer" =~ $expected ]] || fail "unexpected GTP answers from /usr/bin/tengen: $answer"

# The stamp names the commit whose sources the binary was built from: HEAD, or (build.rs
# stamps when the sources change, not when HEAD moves) a commit before it.
version="$(/usr/bin/tengen --version)"
if head="$(git rev-parse --short HEAD 2>/dev/null)"; then
    stamped="$(sed -n 's/^tengen .* (commit \([0-9a-f]*\).*/\1/p' <<<"$version")"
    [ -n "$stamped" ] && git merge-base --is-ancestor "$stamped" HEAD ||
        fail "--version names no commit of HEAD ($head) or before it: $version"
fi

# The man page and the completions, each readable by what uses it.
zcat /usr/share/man/man1/tengen.1.gz | grep -q '^\.TH tengen 1' || fail "no man page"
bash -c 'source /usr/share/bash-completion/completions/tengen && complete -p tengen' >/dev/null ||
    fail "the bash completion defines no completion for tengen"
grep -q '^#compdef tengen' /usr/share/zsh/vendor-completions/_tengen || fail "no zsh completion"
grep -q '^complete -c tengen' /usr/share/fish/vendor_completions.d/tengen.fish || fail "no fish completion"
# The copyright file names the holder and both licenses; the Apache text is beside it.
copyright=/usr/share/doc/tengen/copyright
grep -q '^Copyright: The tengen developers$' "$copyright" || fail "$copyright names no holder"
grep -q '^License: MIT OR Apache-2.0$' "$copyright" || fail "$copyright names no license"
grep -q '^Permission is hereby granted' "$copyright" || fail "$copyright holds no MIT text"
grep -q 'Apache License' /usr/share/doc/tengen/LICENSE-APACHE || fail "no Apache-2.0 text"
[ "$(dpkg-query -W -f '${Maintainer}' tengen)" = "The tengen developers" ] ||
    fail "the maintainer is not The tengen developers"
/usr/bin/tengen config --config /usr/share/doc/tengen/examples/engines.toml >/dev/null ||
    fail "the example engines.toml does not load"
unit=/usr/lib/systemd/system/tengen-serve.service
[ -f "$unit" ] || fail "no $unit"
[ ! -e /etc/systemd/system/multi-user.target.wants/tengen-serve.service ] ||
    fail "tengen-serve is enabled on install"
if command -v systemd-analyze >/dev/null 2>&1; then systemd-analyze verify "$unit"; fi

$sudo dpkg -r tengen >/dev/null
[ ! -e /usr/bin/tengen ] || fail "/usr/bin/tengen is still there after dpkg -r"
echo "check-deb: $deb installs, plays (genmove: ${answer//$'\n'/ }) and is removed"
