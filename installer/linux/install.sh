#!/bin/sh
# Installs Serpent for the current user from this unpacked folder (no root needed):
#   ~/.local/bin/serpent-tk and serpent-tk-bridge   -> this folder's executables
#   ~/.local/share/applications/serpent.desktop     -> menu entry (absolute Exec path)
#   ~/.local/share/icons/hicolor/<N>x<N>/apps/serpent.png
# `./install.sh --uninstall` removes those again (your libraries and settings stay).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd -P)
DATA=${XDG_DATA_HOME:-"$HOME/.local/share"}
BIN="$HOME/.local/bin"
APPS="$DATA/applications"
ICONS="$DATA/icons/hicolor"
SIZES="16 24 32 48 64 128 256 512"

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$BIN/serpent-tk" "$BIN/serpent-tk-bridge" "$APPS/serpent.desktop"
    for n in $SIZES; do rm -f "$ICONS/${n}x${n}/apps/serpent.png"; done
    echo "Serpent removed from the menu and ~/.local/bin (libraries and settings kept)."
    exit 0
fi

mkdir -p "$BIN" "$APPS"
ln -sf "$HERE/Serpent" "$BIN/serpent-tk"
ln -sf "$HERE/serpent-tk-bridge" "$BIN/serpent-tk-bridge"
for n in $SIZES; do
    icon="$HERE/_internal/icons/serpent-$n.png"
    if [ -f "$icon" ]; then
        mkdir -p "$ICONS/${n}x${n}/apps"
        cp "$icon" "$ICONS/${n}x${n}/apps/serpent.png"
    fi
done
sed -e "s|^Exec=.*|Exec=\"$HERE/Serpent\"|" -e "s|^TryExec=.*|TryExec=$HERE/Serpent|" \
    "$HERE/serpent.desktop" > "$APPS/serpent.desktop"
chmod 644 "$APPS/serpent.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$APPS" || true
echo "Serpent installed: find it in your applications menu, or run serpent-tk."
case ":$PATH:" in
    *":$BIN:"*) ;;
    *) echo "Note: $BIN is not on your PATH; add it to run serpent-tk from a terminal." ;;
esac
