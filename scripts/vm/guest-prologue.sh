# Sourced first by every guest script (inside the VM, chrooted into the host root, cwd = the
# share). Defines `step`, makes the pictures deterministic and starts the MJPEG producer.
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
