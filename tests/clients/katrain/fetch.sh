#!/bin/sh
# Unpacks KaTrain's Python package and the two it imports (pysgf, chardet) into DIR, without
# installing anything: what drive.py needs. Usage: fetch.sh DIR (needs pip and network).
set -eu
dir=$1
mkdir -p "$dir/wheels"
python3 -m pip download --quiet --no-deps -d "$dir/wheels" katrain pysgf chardet
for wheel in "$dir"/wheels/*.whl; do
    python3 - "$wheel" "$dir" <<'PY'
import sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        # KaTrain's bundled KataGo binaries and networks are not needed.
        if name.startswith(("katrain/KataGo/", "katrain/models/")):
            continue
        z.extract(name, out)
PY
done
rm -rf "$dir/wheels"
