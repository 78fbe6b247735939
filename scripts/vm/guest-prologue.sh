# Sourced first by every guest script (inside the VM, chrooted into the host root, cwd = the
# share). Defines `step`, makes the pictures deterministic and starts the MJPEG producer; defines
# `load_vimc`, `load_vimc_raw`, `load_vivid_uvc` and `start_udev` for the guest scripts that want
# libcamera's cameras.
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
trap '[ -n "$lbproducer_pid" ] && kill "$lbproducer_pid" 2>/dev/null' EXIT

# insert_module FILE [OPTION=VALUE...]: inserts one of the built modules from the share (vivid and
# guest-init.sh loaded their dependencies, so it goes in as it is); with udevd already running,
# returns once udev has processed its nodes (only then are they a libcamera camera).
insert_module() {
  file=$1; shift
  insmod "$CAPTUREKIT_VM_MODULES/$file" "$@" || { echo "insmod $file FAILED"; return 1; }
  [ ! -S /run/udev/control ] || SYSTEMD_IGNORE_CHROOT=1 timeout 70 udevadm settle --timeout=60
}

# load_vimc [OPTION=VALUE...]: vimc, the kernel's media-controller camera that libcamera drives
# (a sensor, debayer and scaler; /dev/media4, /dev/video4 to /dev/video6 beside vivid's 0 to 3
# and the loopback's 10). Not loaded at boot, since the V4L2 suites count the cameras they find.
load_vimc() { insert_module vimc.ko "$@"; }

# load_vimc_raw: vimc_raw (scripts/vm/vimc-raw.patch), vimc as two raw sensors behind a CSI-2
# receiver that libcamera's simple pipeline handler drives: cameras with a raw stream role.
load_vimc_raw() { insert_module vimc_raw.ko; }

# load_vivid_uvc: vivid_uvc (scripts/vm/vivid-uvc.patch), vivid as a USB camera that libcamera's
# uvcvideo pipeline handler lists as well: one camera both the V4L2 backend and libcamera reach.
# One webcam input on one capture node, as the harness's vivid cameras have.
load_vivid_uvc() { insert_module vivid_uvc.ko n_devs=1 node_types=0x1 num_inputs=1 input_types=0; }

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
