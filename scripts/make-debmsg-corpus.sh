#!/usr/bin/env bash
# Regenerates the embedded German->English corpus data/debmsg-de-en (and data/tiny-de-en)
# from the German gettext catalogs of pinned Debian 12 packages.
#
# The packages are fetched with `apt-get download` into a temporary directory and unpacked
# with `dpkg-deb -x`; nothing is installed. Needs: apt-get, apt-cache, dpkg-deb, python3
# (standard library only), network access to a Debian mirror (run `apt-get update` first).
# The pairs are cleaned and split by scripts/make_debmsg_corpus.py (rules listed there and
# in data/debmsg-de-en/PROVENANCE.md).
#
# When a pinned version is gone from the mirror, the script warns, uses the version apt
# offers now, and records the version actually used in PROVENANCE.md; the corpus then
# differs from the committed one. For the exact committed bytes point apt at
# snapshot.debian.org (archive/debian/20250520T000000Z and the matching debian-security).
#
# Usage: scripts/make-debmsg-corpus.sh [REPO_ROOT]   (default: the parent of scripts/)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="${1:-$(dirname "$here")}"
python="${PYTHON:-python3}"

# name=version as `apt-cache policy` showed on Debian 12 (bookworm), 2025-05-20 snapshot.
PACKAGES=(
  gcc-12-locales=12.2.0-14+deb12u1
  postgresql-15=15.20-0+deb12u1
  postgresql-client-15=15.20-0+deb12u1
  git=1:2.39.5-0+deb12u3
  util-linux-locales=2.38.1-5+deb12u3
  iso-codes=4.15.0-1
  libgtk-3-common=3.24.38-2~deb12u3
  gnupg-l10n=2.2.40-1.1+deb12u2
  libc-l10n=2.36-9+deb12u14
  e2fsprogs-l10n=1.47.0-2
  libglib2.0-data=2.74.6-2+deb12u9
  dpkg=1.21.23
  vlc-l10n=3.0.24-0+deb12u1
  gnucash-common=1:4.13-1
  libgphoto2-l10n=2.5.30-1
  krb5-locales=1.20.1-2+deb12u5
  gnome-control-center-data=1:43.6-2~deb12u1
  network-manager=1.42.4-1+deb12u1
  xkb-data=2.35.1-1
  thunar-data=4.18.4-1
  sudo=1.9.13p3-1+deb12u4
  coreutils=9.1-1
  gawk=1:5.2.1-2
  aptitude-common=0.8.13-5
  mc-data=3:4.8.29-2
  gettext=0.21-12
  login=1:4.13+dfsg1-1+deb12u2
  libextractor3=1:1.11-7
  cryptsetup-bin=2:2.6.1-4~deb12u2
  texinfo=6.8-6+b1
  synaptic=0.91.3
  nautilus-data=43.2-1
  gedit-common=44.2-1
  tar=1.34+dfsg-1.2+deb12u1
  procps=2:4.0.2-3
  man-db=2.11.2-2
  libgpg-error-l10n=1.46-1
  gnome-terminal-data=3.46.8-1
  bison=2:3.8.2+dfsg-1+b1
  xfce4-panel=4.18.2-1
  totem-common=43.0-2
  pulseaudio=16.1+dfsg1-2+b1
  nano=7.2-1+deb12u1
  libgstreamer1.0-0=1.22.0-2+deb12u1
  libelf1=0.188-2.1
  kbd=2.5.1-1+b1
  gnome-shell-common=43.9-0+deb12u2
  flex=2.6.4-8.2
  file-roller=43.0-1
  systemd=252.39-1~deb12u2
  mousepad=0.5.10-2
  make=4.3-4.1
  libgtk2.0-common=2.24.33-2+deb12u1
  libgtk-4-common=4.8.3+ds-2+deb12u1
  libgnutls30=3.7.9-2+deb12u7
  findutils=4.9.0-4
  evince-common=43.1-2+deb12u1
  binutils-common=2.40-2
  apt=2.6.2
  wget=1.21.3-1+deb12u1
  udisks2=2.9.4-4+deb12u2
  sharutils=1:4.15.2-9
  eog=43.2-1+deb12u1
  diffutils=1:3.8-4
  bash=5.2.15-2+b13
)

for tool in apt-get apt-cache dpkg-deb "$python"; do
  command -v "$tool" >/dev/null || { echo "error: $tool not found" >&2; exit 1; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
manifest="$work/manifest.tsv"
: >"$manifest"

# Downloads NAME=VERSION into $work/debs; on failure falls back to apt's candidate and
# prints the version actually fetched.
fetch() {
  local name="$1" want="$2" got
  mkdir -p "$work/debs/$name"
  if (cd "$work/debs/$name" && apt-get download -q "$name=$want" >/dev/null 2>&1); then
    got="$want"
  else
    got="$(apt-cache policy "$name" | awk '/Candidate:/ {print $2}')"
    if [ -z "$got" ] || [ "$got" = "(none)" ]; then
      echo "error: package $name is not available from the configured mirrors" >&2
      exit 1
    fi
    echo "warning: $name=$want is not available; using $got" >&2
    (cd "$work/debs/$name" && apt-get download -q "$name=$got" >/dev/null)
  fi
  echo "$got"
}

for spec in "${PACKAGES[@]}"; do
  name="${spec%%=*}"
  version="$(fetch "$name" "${spec#*=}")"
  tree="$work/tree/$name"
  mkdir -p "$tree"
  dpkg-deb -x "$work/debs/$name"/*.deb "$tree"
  copyright="$tree/usr/share/doc/$name/copyright"
  # Some packages (gcc-12-locales) link their doc dir to another package's; fetch that
  # package too, only for its copyright file.
  if [ -L "$tree/usr/share/doc/$name" ]; then
    owner="$(basename "$(readlink "$tree/usr/share/doc/$name")")"
    owner_dir="$work/owner/$owner"
    mkdir -p "$owner_dir"
    owner_version="$(apt-cache policy "$owner" | awk '/Candidate:/ {print $2}')"
    (cd "$owner_dir" && apt-get download -q "$owner=$owner_version" >/dev/null)
    dpkg-deb -x "$owner_dir"/*.deb "$owner_dir/tree"
    copyright="$owner_dir/tree/usr/share/doc/$owner/copyright"
  fi
  [ -f "$copyright" ] || copyright=""
  printf '%s\t%s\t%s\t%s\n' "$name" "$version" "$tree" "$copyright" >>"$manifest"
  echo "unpacked $name $version" >&2
done

"$python" "$here/make_debmsg_corpus.py" --manifest "$manifest" \
  --out "$root/data/debmsg-de-en" --tiny-out "$root/data/tiny-de-en" \
  --command "scripts/make-debmsg-corpus.sh   # from the repository root"
