#!/bin/sh
# Gets gtp2ogs 9.0.1's sources into DIR/gtp2ogs and the packages its bot and game code import
# into DIR/node_modules, without installing anything elsewhere: what drive.js needs.
# Usage: fetch.sh DIR (needs git, npm and network).
set -eu
dir=$1
mkdir -p "$dir"
git clone --quiet --depth 1 --branch 9.0.1 https://github.com/online-go/gtp2ogs.git "$dir/gtp2ogs"
cd "$dir"
echo '{ "private": true }' >package.json
npm="npm install --no-audit --no-fund --no-package-lock --fetch-retries=0"
# The versions gtp2ogs 9.0.1 asks for, and the TypeScript compiler its sources are loaded with.
$npm split2@4 tracer@1 yargs@17 json5@2 jsonschema@1 eventemitter3@5 typescript@5.7.2
# OGS's board library as gtp2ogs pins it, else the same code with its renderer (drive.js
# loads either).
$npm goban-engine@8.3.71 || $npm goban@8.3.64
