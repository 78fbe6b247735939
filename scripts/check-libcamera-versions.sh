#!/bin/bash
# Compiles the libcamera shim (Sources/CLibCameraPlugin) against the headers of other libcamera
# releases than the system's (Debian 12 ships 0.0.3), so its version checks are known to hold:
#
#   scripts/check-libcamera-versions.sh LIBCAMERA-GIT-CHECKOUT [TAG...]   (default: v0.0.3 and later)
#
# For each tag: a worktree of the checkout, `meson setup` with only the vimc pipeline, the
# generated headers (control_ids.h, property_ids.h, formats.h; version.h comes from the setup),
# then clang++ -fsyntax-only -Wall -Wextra on the shim in the release's C++ standard. Needs
# meson, ninja-build, python3-jinja2, python3-yaml, python3-ply, libyaml-dev and
# libgnutls28-dev (not in scripts/install-deps.sh: CI has no libcamera checkout). Work goes to
# $LIBCAMERA_CHECK_DIR (default /tmp/capturekit-libcamera-versions). Exit status 1 when any
# release fails to compile the shim, 2 when one cannot be set up.
set -u
checkout=${1:?usage: $0 LIBCAMERA-GIT-CHECKOUT [TAG...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
work=${LIBCAMERA_CHECK_DIR:-/tmp/capturekit-libcamera-versions}
mkdir -p "$work"
tags=("$@")
# By default every release from Debian 12's 0.0.3 on.
[ ${#tags[@]} -gt 0 ] || mapfile -t tags < <(git -C "$checkout" tag --list 'v0.*' | grep -E '^v0\.[0-9]+\.[0-9]+$' | sort -V | sed -n '/^v0\.0\.3$/,$p')
status=0
for tag in "${tags[@]}"; do
  src=$work/src-$tag build=$work/build-$tag
  [ -d "$src" ] || git -C "$checkout" worktree add -f --detach "$src" "$tag" > /dev/null 2>&1 \
    || { echo "$tag: no worktree"; status=2; continue; }
  if [ ! -f "$build/build.ninja" ]; then
    # The system's meson (a pyenv Python may come first on PATH without meson's modules).
    (cd "$src" && PATH=/usr/bin:$PATH meson setup "$build" -Dpipelines=vimc -Dipas=vimc -Dcam=disabled -Dgstreamer=disabled \
       -Dv4l2=false -Dqcam=disabled -Dlc-compliance=disabled -Dtracing=disabled -Ddocumentation=disabled -Dpycamera=disabled \
       -Dtest=false > "$build.setup.log" 2>&1) || { echo "$tag: meson setup failed (see $build.setup.log)"; status=2; continue; }
  fi
  PATH=/usr/bin:$PATH ninja -C "$build" include/libcamera/control_ids.h include/libcamera/property_ids.h include/libcamera/formats.h \
    > "$build.headers.log" 2>&1 || { echo "$tag: header generation failed (see $build.headers.log)"; status=2; continue; }
  std=$(grep -o "cpp_std=c++[0-9]*" "$src/meson.build" | head -1 | cut -d= -f2)
  if clang++ -std="${std:-c++17}" -Wall -Wextra -Werror -fsyntax-only -I"$root/Sources/CLibCamera/include" -I"$build/include" \
       -I"$src/include" "$root/Sources/CLibCameraPlugin/CLibCameraPlugin.cpp" > "$build.compile.log" 2>&1; then
    echo "$tag (${std:-c++17}): the shim compiles"
  else
    echo "$tag (${std:-c++17}): the shim does not compile:"; grep -E "error" "$build.compile.log" | head -5
    status=1
  fi
done
exit $status
