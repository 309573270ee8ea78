#!/bin/sh
# Makes the README's picture of GoGui attached to tengen with its Ownership view on:
# docs/images/gogui-ownership.png (or OUTPUT.png). GoGui is built from its source (a pinned
# commit, cloned into a cache directory outside the repository, or GOGUI_SRC: a clone of
# it), without ant, docbook or inkscape: javac, and rsvg-convert for its icons. It loads
# tools/screenshot-game.sgf (the game of tools/screenshot.py's picture) with tengen's mcts
# level attached, then tools/gogui-screenshot/Shot.java opens Tools -> Analyze Commands,
# runs Ownership and draws GoGui's window and the Analyze window side by side into the PNG,
# under Xvfb.
# Run it by hand after a change to the GoGui commands (the tests never do):
#
#   cargo build --release && tools/gogui-screenshot.sh [OUTPUT.png]
#
# Needs git (and network unless GOGUI_SRC is given), a JDK (javac 11 or newer), rsvg-convert
# and xvfb-run: apt-get install default-jdk-headless librsvg2-bin xvfb xauth.
# TENGEN names another binary than target/release/tengen.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
output=$(realpath -m "${1:-$root/docs/images/gogui-ownership.png}")
tengen=${TENGEN:-$root/target/release/tengen}
commit=f5e4b6a8278548c8f7e4f55a4ace475c2bba62dd
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tengen-gogui-$commit
for program in git javac java rsvg-convert xvfb-run; do
    command -v $program >/dev/null || {
        echo "gogui-screenshot.sh: $program not found (see the header)" >&2
        exit 1
    }
done
[ -x "$tengen" ] || { echo "gogui-screenshot.sh: $tengen not found: cargo build --release" >&2; exit 1; }

if [ ! -e "$cache/classes/net/sf/gogui/gogui/GoGui.class" ]; then
    rm -rf "$cache"
    mkdir -p "$cache"
    git clone --quiet "${GOGUI_SRC:-https://github.com/Remi-Coulom/gogui.git}" "$cache/gogui"
    git -C "$cache/gogui" checkout --quiet "$commit"
    src=$cache/gogui/src
    # What GoGui's build.xml and images/svg.sh would make: Version.java and the sized icons.
    sed 's/@VERSION@/1.6.0/' "$src/net/sf/gogui/version/Version.java.in" \
        >"$src/net/sf/gogui/version/Version.java"
    for svg in "$src"/net/sf/gogui/images/*.svg; do
        for size in 8 16 24 32 48 64; do
            rsvg-convert -w $size -o "${svg%.svg}-${size}x${size}.png" "$svg"
        done
    done
    mkdir -p "$cache/classes"
    find "$src" -name '*.java' >"$cache/sources"
    javac -nowarn -encoding UTF-8 --release 8 -d "$cache/classes" @"$cache/sources" 2>&1 |
        grep -v '^Note:' || true
    [ -e "$cache/classes/net/sf/gogui/gogui/GoGui.class" ] || {
        echo "gogui-screenshot.sh: GoGui did not compile" >&2
        exit 1
    }
    (cd "$src" && find net \( -name '*.properties' -o -name '*.png' -o -name analyze-commands \) \
        -exec cp --parents {} "$cache/classes/" \;)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/shot" "$work/home" "$(dirname "$output")"
javac -nowarn -cp "$cache/classes" -d "$work/shot" "$root/tools/gogui-screenshot/Shot.java"
# GoGui's settings in a home of its own: coordinates on, no clock and comment panel.
printf 'net.sf.gogui.gogui.show-grid=true\nnet.sf.gogui.gogui.show-info-panel=false\n' \
    >"$work/home/.gogui-prefs"
cd "$work"
# -move: the game's last move (24), so that GoGui shows its end, as the browser picture does.
timeout 300 xvfb-run -a -s "-screen 0 1280x1024x24" \
    java -Duser.home="$work/home" -cp "$cache/classes:$work/shot" Shot "$output" Ownership 1 \
    -program "$tengen gtp --level mcts" -computer-none -size 9 -move 24 \
    "$root/tools/screenshot-game.sgf"
echo "$output: $(wc -c <"$output") bytes"
