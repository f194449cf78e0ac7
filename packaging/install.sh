#!/bin/sh
# Put bpe-desktop in the user's application menu: the launcher, the SVG icon and the AppStream metainfo go
# into the XDG data folder ($XDG_DATA_HOME, default ~/.local/share); nothing outside it is touched.
#
#   install.sh --user [--exec PATH]    install (or update) the launcher for this user
#   install.sh --user --uninstall      remove what --user installed
#
# Works from the unpacked bundle (bpe-desktop/install.sh: the launcher runs the bundle's executable where it
# is, so install from where you mean to keep it) and from a checkout (packaging/install.sh: the launcher runs
# dist/bpe-desktop/bpe-desktop if built, else the `bpe-desktop` of `pip install`). --exec overrides either.
set -eu
usage() { sed -n '2,11s/^# \{0,1\}//p' "$0"; }

user=0 uninstall=0 exe=""
while [ $# -gt 0 ]; do
    case "$1" in
        --user) user=1 ;;
        --uninstall) uninstall=1 ;;
        --exec) [ $# -ge 2 ] || { echo "install.sh: --exec needs a path" >&2; exit 2; }; exe=$2; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1 -- see install.sh --help" >&2; exit 2 ;;
    esac
    shift
done
[ "$user" = 1 ] || { echo "install.sh: only per-user installs are supported -- run install.sh --user" >&2; exit 2; }
[ -n "${HOME:-}" ] || { echo "install.sh: HOME is not set" >&2; exit 2; }

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
if [ -x "$here/bpe-desktop" ] && [ -d "$here/_internal" ]; then      # the unpacked bundle
    share="$here/share"
    icon="$here/_internal/bpe_desktop/resources/icons/bpe-desktop.svg"
    default_exe="$here/bpe-desktop"
else                                                                   # a checkout
    root=$(dirname -- "$here")
    share="$here"
    icon="$root/resources/icons/bpe-desktop.svg"
    if [ -x "$root/dist/bpe-desktop/bpe-desktop" ]; then
        default_exe="$root/dist/bpe-desktop/bpe-desktop"
    else
        default_exe=$(command -v bpe-desktop || true)
    fi
fi

data=${XDG_DATA_HOME:-$HOME/.local/share}
desktop_dst="$data/applications/bpe-desktop.desktop"
icon_dst="$data/icons/hicolor/scalable/apps/bpe-desktop.svg"
meta_dst="$data/metainfo/io.github.bpe_desktop.metainfo.xml"

refresh() {  # let menus and icon themes notice (the tools are optional)
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$data/applications" || true
    command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$data/icons/hicolor" 2>/dev/null || true
}

if [ "$uninstall" = 1 ]; then
    rm -f "$desktop_dst" "$icon_dst" "$meta_dst"
    refresh
    echo "removed the bpe-desktop launcher, icon and metainfo from $data"
    exit 0
fi

exe=${exe:-$default_exe}
if [ -z "$exe" ] || [ ! -x "$exe" ]; then
    echo "install.sh: no bpe-desktop executable found${exe:+ at $exe} -- build the bundle (packaging/build.sh)," \
         "pip install the program, or pass --exec PATH" >&2
    exit 2
fi
case "$exe" in /*) ;; *) exe="$(CDPATH= cd -- "$(dirname -- "$exe")" && pwd)/$(basename -- "$exe")" ;; esac
for f in "$share/bpe-desktop.desktop" "$share/io.github.bpe_desktop.metainfo.xml" "$icon"; do
    [ -f "$f" ] || { echo "install.sh: missing $f -- is this a complete bundle or checkout?" >&2; exit 2; }
done

# Exec/TryExec: the absolute path, quoted as the Desktop Entry spec asks (\ " ` $ escaped inside quotes)
quoted=$(printf '%s' "$exe" | sed 's/[\\"`$]/\\\\&/g')
tmp="$desktop_dst.tmp.$$"
mkdir -p "$(dirname "$desktop_dst")" "$(dirname "$icon_dst")" "$(dirname "$meta_dst")"
{
    grep -v '^Exec=\|^TryExec=' "$share/bpe-desktop.desktop"
    printf 'Exec="%s"\nTryExec=%s\n' "$quoted" "$(printf '%s' "$exe" | sed 's/\\/\\\\/g')"
} > "$tmp"
mv -f "$tmp" "$desktop_dst"
cp -f "$icon" "$icon_dst.tmp.$$" && mv -f "$icon_dst.tmp.$$" "$icon_dst"
cp -f "$share/io.github.bpe_desktop.metainfo.xml" "$meta_dst.tmp.$$" && mv -f "$meta_dst.tmp.$$" "$meta_dst"
refresh
echo "installed the bpe-desktop launcher (runs $exe), icon and metainfo into $data"
