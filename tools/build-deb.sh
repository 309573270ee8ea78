#!/usr/bin/env bash
# Builds target/debian/tengen_VERSION_ARCH.deb: the binary in the given cargo profile (default
# dist, release with LTO; CI passes release), the man page and the bash, zsh and fish completions
# that the binary itself prints (into target/deb-assets/), then `cargo deb` packs them with the
# files [package.metadata.deb] in Cargo.toml lists. Prints the .deb's path last.
# Needs cargo-deb (`cargo install cargo-deb --locked`).
set -euo pipefail
cd "$(dirname "$0")/.."

profile="${1:-dist}"
cargo build --locked --profile "$profile" --bin tengen
if [ "$profile" = dev ]; then binary=target/debug/tengen; else binary="target/$profile/tengen"; fi

assets=target/deb-assets
mkdir -p "$assets"
"$binary" man | gzip -9n >"$assets/tengen.1.gz"
"$binary" completions bash >"$assets/tengen.bash"
"$binary" completions zsh >"$assets/_tengen"
"$binary" completions fish >"$assets/tengen.fish"

cargo deb --locked --profile "$profile" --no-build
