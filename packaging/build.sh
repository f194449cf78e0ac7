#!/usr/bin/env bash
# Build the one-folder desktop bundle: dist/bpe-desktop/bpe-desktop (+ its _internal/ folder) and
# dist/bpe-desktop-VERSION-linux-ARCH.tar.gz, from the current Python environment (which needs the app's
# dependencies and PyInstaller: pip install -e '.[packaging]').  Prints the build time and the sizes.
# Options: --no-tar (skip the archive).  Run from anywhere; paths are relative to the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
make_tar=1
[ "${1:-}" = "--no-tar" ] && make_tar=0
"$PYTHON" -m PyInstaller --version >/dev/null 2>&1 || {
    echo "build.sh: PyInstaller is not installed -- pip install -e '.[packaging]'" >&2; exit 2; }
version=$("$PYTHON" -c 'import bpe_desktop; print(bpe_desktop.__version__)')
start=$(date +%s.%N)
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/bpe-desktop.spec
built=$(date +%s.%N)
# the desktop integration travels with the bundle: bpe-desktop/install.sh --user adds it to the menu
install -m 755 packaging/install.sh dist/bpe-desktop/install.sh
install -d dist/bpe-desktop/share
install -m 644 packaging/bpe-desktop.desktop packaging/io.github.bpe_desktop.metainfo.xml dist/bpe-desktop/share/
echo "built dist/bpe-desktop in $("$PYTHON" -c "print(round($built - $start))") s: $(du -sh dist/bpe-desktop | cut -f1)"
if [ "$make_tar" = 1 ]; then
    tarball="dist/bpe-desktop-${version}-linux-$(uname -m).tar.gz"
    tar -C dist -czf "$tarball" bpe-desktop
    echo "wrote $tarball: $(du -sh "$tarball" | cut -f1)"
fi
