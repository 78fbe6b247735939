# Sourced first by every guest script (inside the VM, chrooted into the host root, cwd = the
# share). Defines `step`, makes the pictures deterministic and starts the MJPEG producer; defines
# `load_vimc` and `start_udev` for the guest scripts that want libcamera's camera, and
# `start_uvc_gadget` for those that want a USB webcam.
up() { cut -d' ' -f1 /proc/uptime; }
# step NAME COMMAND...: runs COMMAND with its output in NAME.log and its status in NAME.rc
step() {
  n=$1; shift
  echo "$n" >> steps
  echo "GUEST: step $n started at $(up)s" > /dev/console 2>/dev/null || true
  "$@" > "$n.log" 2>&1
  rc=$?
  echo "$rc" > "$n.rc"
  echo "GUEST: step $n status $rc at $(up)s" > /dev/console 2>/dev/null || true
  return 0
}

# vivid's default picture has a moving clock overlay; static bars and no text make frames
# comparable with the known pattern. Start-of-exposure timestamps: by default vivid stamps a
# frame one period after the moment it fills it, ahead of the clock.
for d in $CAPTUREKIT_VM_VIVID; do
  v4l2-ctl -d "$d" -c osd_text_mode=2,horizontal_movement=3,vertical_movement=3,timestamp_source=1 2>&1 | head -3
done

# v4l2loopback only presents a capture node while a producer feeds it (exclusive_caps=1)
lbproducer_pid=""
if [ -e "$CAPTUREKIT_VM_LOOPBACK" ]; then
  "$(dirname "$CAPTUREKIT_VM_MJPEG_REFERENCE")/lbproducer" "$CAPTUREKIT_VM_LOOPBACK" \
    "$CAPTUREKIT_VM_MJPEG_REFERENCE" 640 480 30 > lbproducer.log 2>&1 &
  lbproducer_pid=$!
  for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    v4l2-ctl -d "$CAPTUREKIT_VM_LOOPBACK" -D 2>/dev/null | grep -q 'Video Capture' && break
    sleep 0.25
  done
fi
uvcgadget_pid=""
trap '[ -n "$lbproducer_pid" ] && kill "$lbproducer_pid" 2>/dev/null; [ -n "$uvcgadget_pid" ] && kill "$uvcgadget_pid" 2>/dev/null' EXIT

# load_vimc [OPTION=VALUE...]: vimc, the kernel's media-controller camera that libcamera drives
# (a sensor, debayer and scaler; /dev/media4, /dev/video4 to /dev/video6 beside vivid's 0 to 3
# and the loopback's 10). Not loaded at boot, since the V4L2 suites count the cameras they find;
# guest-init.sh loaded its dependencies, so the share's copy is inserted as it is.
load_vimc() {
  insmod "$CAPTUREKIT_VM_MODULES/vimc.ko" "$@" || { echo "load_vimc: insmod vimc.ko FAILED"; return 1; }
  # with udevd already running, its nodes are a libcamera camera once udev has processed them
  [ ! -S /run/udev/control ] || SYSTEMD_IGNORE_CHROOT=1 timeout 70 udevadm settle --timeout=60
}

# start_udev: udevd, for the guest scripts that need it (libcamera lists only the cameras udev
# has processed). Opt-in: the other suites run without it, as they always have (CaptureKit's
# V4L2 hot-plug monitor watches /dev, where udevd changes modes and adds links after every
# node). Only media and video4linux devices are replayed: the other rules would restore ALSA
# mixers, set the clock from the RTC and so on. systemd's tools take a root other than PID 1's
# (the initramfs's) for a chroot and ignore requests there ("Running in chroot, ignoring
# request") unless SYSTEMD_IGNORE_CHROOT is set: this one has the guest's own /dev, /sys, /run.
start_udev() {
  [ -x /lib/systemd/systemd-udevd ] || { echo "start_udev: no /lib/systemd/systemd-udevd (Debian package udev on the host)"; return 1; }
  # the root is the host's, read-only: udevd's database and control socket go to /run (tmpfs)
  mkdir -p /run/udev
  SYSTEMD_IGNORE_CHROOT=1 /lib/systemd/systemd-udevd --daemon || { echo "start_udev: systemd-udevd did not start"; return 1; }
  SYSTEMD_IGNORE_CHROOT=1 timeout 60 udevadm control --ping --timeout=50 || { echo "start_udev: udevd does not answer"; return 1; }
  SYSTEMD_IGNORE_CHROOT=1 udevadm trigger --action=add --subsystem-match=media --subsystem-match=video4linux || return 1
  SYSTEMD_IGNORE_CHROOT=1 timeout 70 udevadm settle --timeout=60 || { echo "start_udev: udev events still queued after 60 s"; return 1; }
}

# start_uvc_gadget: a USB webcam, "CaptureKit UVC Gadget" (scripts/vm/uvcgadget.c: YUYV 320x240
# and 640x480 at 30 fps, vertical bars and a frame number), made by uvcgadget through gadgetfs on
# dummy_hcd's device side and driven by uvcvideo on its host side, as a real webcam is; exports
# CAPTUREKIT_VM_UVC_NODE, uvcvideo's capture node. Not started at boot, since the V4L2 suites
# count the cameras they find. The modules and uvcgadget are in the initramfs, which this chroot
# reaches as /proc/1/root (init's root); its busybox modprobe resolves their dependencies there.
# With udevd running, returns once udev has processed the new devices (libcamera lists only
# those). Its log: uvcgadget.log in the run directory.
start_uvc_gadget() {
  initramfs=/proc/1/root
  [ -x "$initramfs/bin/uvcgadget" ] || { echo "start_uvc_gadget: no $initramfs/bin/uvcgadget (scripts/vm/setup.sh builds it)"; return 1; }
  # usbcore first, without autosuspend: an idle camera stays up rather than suspending and resuming
  # between a test's listing and its capture (a real webcam's business, not these tests')
  for m in "usbcore autosuspend=-1" dummy_hcd gadgetfs uvcvideo; do
    chroot "$initramfs" /bin/modprobe $m || { echo "start_uvc_gadget: modprobe $m FAILED"; return 1; }
  done
  mkdir -p /dev/gadget
  grep -q ' /dev/gadget gadgetfs ' /proc/mounts || mount -t gadgetfs gadgetfs /dev/gadget \
    || { echo "start_uvc_gadget: cannot mount gadgetfs"; return 1; }
  "$initramfs/bin/uvcgadget" /dev/gadget > uvcgadget.log 2>&1 &
  uvcgadget_pid=$!
  # bounded: enumeration under software emulation takes about a second
  i=0
  while [ $i -lt 240 ]; do
    for d in /dev/video*; do
      info=$(v4l2-ctl -d "$d" -D 2>/dev/null) || continue
      echo "$info" | grep -q 'Driver name *: uvcvideo' || continue
      echo "$info" | sed -n '/Device Caps/,$p' | grep -q 'Video Capture' || continue
      export CAPTUREKIT_VM_UVC_NODE="$d"
      [ ! -S /run/udev/control ] || SYSTEMD_IGNORE_CHROOT=1 timeout 70 udevadm settle --timeout=60
      echo "start_uvc_gadget: uvcvideo's capture node is $d"
      return 0
    done
    kill -0 "$uvcgadget_pid" 2>/dev/null || { echo "start_uvc_gadget: uvcgadget exited:"; cat uvcgadget.log; return 1; }
    i=$((i + 1)); sleep 0.25
  done
  echo "start_uvc_gadget: no uvcvideo capture node after 60 s; uvcgadget's log:"; cat uvcgadget.log
  dmesg | grep -iE 'usb|uvc|gadget|dummy' | tail -n 30
  return 1
}
