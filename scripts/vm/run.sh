#!/usr/bin/env bash
# Boots the V4L2 test VM and runs a guest script in it; the exit status says whether every step
# the script ran passed.
#   scripts/vm/run.sh GUEST_SCRIPT [NAME]
# The guest (Debian's kernel under qemu's software emulation, never KVM, always under `timeout`)
# has four vivid cameras (/dev/video0 to /dev/video3: webcam inputs, single-planar capture) and a
# v4l2loopback camera (/dev/video10) fed MJPEG by lbproducer, and snd-aloop's Loopback sound
# card (card 0, one substream per PCM device); a guest script that calls load_vimc also has
# vimc's media-controller camera for libcamera (/dev/media4, /dev/video4 to /dev/video6), one
# that calls load_vimc_raw vimc_raw's two raw sensors (libcamera's simple pipeline handler), one
# that calls load_vivid_uvc a USB-like camera that libcamera's uvcvideo handler lists too, and
# one that calls start_udev has udevd (guest-prologue.sh). GUEST_SCRIPT runs in a chroot
# into this machine's own root (read-only 9p), so the checkout's build products run unchanged;
# its working directory is a writable share (.vm-cache/runs/NAME), also its path on the host.
# It is sourced by a prologue that defines `step NAME COMMAND...`: each step's output goes to
# NAME.log and its status to NAME.rc; the run passes when every step ran and returned 0.
#   VM_TIMEOUT=s   hard limit for the whole VM (default 900: the suites take ~2.5 min quiet and
#                  up to ~6 min beside two CPU hogs under software emulation)
#   VM_SMP=n       guest CPUs (default: the host's, at most 4)
#   VM_VERBOSE=1   print the guest's console and every step log, not only failed ones
#   CAPTUREKIT_BENCH_*   passed into the guest
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: scripts/vm/run.sh GUEST_SCRIPT [NAME]" >&2; exit 2; }
script=$(realpath "$1")
name=${2:-$(basename "$script" .sh)}
cache=${VM_CACHE:-$root/.vm-cache}

mkdir -p "$cache"
# One VM at a time per checkout: two would share the run directories and halve each other's CPU.
exec 9> "$cache/.lock"
flock -n 9 || { echo "vm: waiting for another VM run in this checkout to end" >&2; flock 9; }
"$here/setup.sh"
KV=${KV:-$(ls -t "$cache" | grep -- '-amd64$' | head -1)}
vm="$cache/$KV"
share="$cache/runs/$name"
rm -rf "$share"; mkdir -p "$share"
# The guest's /tmp is its own: what it needs travels in the share.
cp "$script" "$share/script.sh"
cp "$vm/lbproducer" "$vm/reference.jpg" "$share/"
# The modules the replug suites unload and load again, and vimc, vimc_raw and vivid_uvc, which
# guest scripts load (the cache may be out of the guest's sight).
modules="$vm/initramfs/lib/modules/$KV/kernel"
cp "$modules/drivers/media/test-drivers/vivid/vivid.ko" "$modules/sound/drivers/snd-aloop.ko" "$vm/v4l2loopback.ko" "$vm/vimc.ko" "$vm/vimc_raw.ko" "$vm/vivid_uvc.ko" "$share/"

# vivid: four instances (the multi-camera suite uses them all, the others the first two), each a
# single-planar video capture node with one webcam input (the discrete sizes and frame rates of
# a USB camera).
vividopts="n_devs=4:node_types=0x1,0x1,0x1,0x1:num_inputs=1,1,1,1:input_types=0,0,0,0"

# The guest's environment: what the integration suites read to find their devices and fixtures
# (and the modules and options of the drivers the replug suites unload and load again).
cat > "$share/guest.sh" <<GUEST
#!/bin/sh
export CAPTUREKIT_VM=1
export CAPTUREKIT_VM_ROOT="$root"
export CAPTUREKIT_VM_SHARE="$share"
export CAPTUREKIT_VM_VIVID="/dev/video0 /dev/video1 /dev/video2 /dev/video3"
export CAPTUREKIT_VM_LOOPBACK=/dev/video10
export CAPTUREKIT_VM_MJPEG_REFERENCE="$share/reference.jpg"
export CAPTUREKIT_VM_MODULES="$share"
export CAPTUREKIT_VM_VIVID_OPTIONS="${vividopts//:/ }"
export CAPTUREKIT_VM_BIN="${CAPTUREKIT_VM_BIN:-$root/.build/debug}"
export NO_COLOR=1
export CI="${CI:-}"
GUEST
# Settings for guest scripts travel as CAPTUREKIT_BENCH_* variables.
for v in $(compgen -e | grep '^CAPTUREKIT_BENCH_' || true); do
  printf "export %s='%s'\n" "$v" "${!v//\'/}" >> "$share/guest.sh"
done
cat >> "$share/guest.sh" <<GUEST
. "$here/guest-prologue.sh"
. ./script.sh
echo 0 > guest.rc
GUEST

smp=${VM_SMP:-$(nproc)}; [ "$smp" -le 4 ] || smp=4
t0=$(date +%s)
set +e
timeout --foreground -k 10 "${VM_TIMEOUT:-900}" qemu-system-x86_64 \
  -accel tcg,thread=multi -cpu max -machine q35 -smp "$smp" -m 2048 \
  -nodefaults -no-user-config -display none -no-reboot -serial stdio -monitor none \
  -kernel "$vm/vmlinux" -initrd "$vm/initramfs.cpio.gz" \
  -append "console=ttyS0 loglevel=4 panic=-1 vividopts=$vividopts loopback=1 hostshare=$share hostwork=$root" \
  -fsdev local,id=fs0,path="$share",security_model=none \
  -device virtio-9p-pci,fsdev=fs0,mount_tag=hostshare \
  -fsdev local,id=fs1,path=/,security_model=none,readonly=on,multidevs=remap \
  -device virtio-9p-pci,fsdev=fs1,mount_tag=hostroot \
  </dev/null > "$share/console.log" 2>&1
qemu_rc=$?
set -e
elapsed=$(( $(date +%s) - t0 ))

# qemu's status says nothing about the tests: the *.rc files do.
failed=0
[ "$qemu_rc" = 0 ] || { echo "vm: qemu exited with $qemu_rc (124: timed out after ${VM_TIMEOUT:-900} s)" >&2; failed=1; }
[ -f "$share/guest.rc" ] || { echo "vm: the guest script did not finish" >&2; failed=1; }
steps=$(cat "$share/steps" 2>/dev/null || true)
[ -n "$steps" ] || { echo "vm: the guest ran no step" >&2; failed=1; }
for s in $steps; do
  rc=$(cat "$share/$s.rc" 2>/dev/null || echo missing)
  if [ "$rc" = 0 ]; then
    echo "vm: step $s passed: $(grep -h 'Test run with' "$share/$s.log" 2>/dev/null | tail -n 1)" >&2
    [ "${VM_VERBOSE:-0}" = 1 ] && cat "$share/$s.log" >&2
  else
    echo "vm: step $s FAILED (status $rc); its log ($share/$s.log):" >&2
    tail -n 60 "$share/$s.log" >&2 2>/dev/null || true
    failed=1
  fi
done
if [ "$failed" = 1 ] || [ "${VM_VERBOSE:-0}" = 1 ]; then
  echo "vm: guest console ($share/console.log):" >&2
  grep -E '^(INIT|GUEST)' "$share/console.log" >&2 || tail -n 30 "$share/console.log" >&2
fi
echo "vm: $name $([ $failed = 0 ] && echo passed || echo FAILED) in ${elapsed} s (results in $share)" >&2
exit "$failed"
