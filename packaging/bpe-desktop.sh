#!/bin/sh
# Launch bpe-desktop without relying on the installed console script: from a source checkout or any
# environment whose Python has the dependencies.  Arguments are passed on (e.g. --corpus FILE, or a
# sub-command such as "train").  PYTHON selects the interpreter (default: python3).
#
# Desktop integration (per user): packaging/install.sh --user (see its --help).
set -eu
here=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
if [ -f "$here/bpe_desktop/__init__.py" ]; then
    PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
    export PYTHONPATH
fi
exec "${PYTHON:-python3}" -m bpe_desktop "$@"
