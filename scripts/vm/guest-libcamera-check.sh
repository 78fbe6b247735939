# Guest script (scripts/vm/run.sh scripts/vm/guest-libcamera-check.sh libcamera-check): libcamera
# against the kernel's vimc camera, with this machine's own cam and media-ctl. Needs the Debian
# packages libcamera-tools, libcamera-ipa (without its IPA module the vimc pipeline handler makes
# no camera), udev and v4l-utils, all in scripts/install-deps.sh.
# The frames cam writes stay in the run directory (.vm-cache/runs/NAME).
step load-vimc load_vimc
step devices sh -c 'ls -l /dev/video* /dev/media* /dev/v4l-subdev*
  for d in /dev/video*; do echo "$d: $(v4l2-ctl -d "$d" -D 2>/dev/null | sed -n "s/^\tCard type *: //p" | head -1)"; done'
# Before udevd: libcamera's udev enumerator (libudev works without the daemon) skips the media
# devices udev has not processed, so it lists no camera (a record: the step passes either way).
step cam-list-without-udev cam -l
step udev start_udev
step cam-list sh -c 'cam -l > cam-list.out 2>&1; cat cam-list.out; grep -q "^1: " cam-list.out'
step cam-info cam -c 1 -I
# every stream role alone (the sizes of each format left out: cam-info has them)
step cam-info-roles sh -c 'for r in viewfinder video still raw; do echo "role=$r:"; cam -c 1 -I -s role=$r 2>&1 | grep -v -e "^  - " -e " WARN " -e " INFO "; done'
step cam-capture sh -c 'rm -f frame-*.bin; cam -c 1 --capture=10 --file=frame-#.bin && ls -l frame-*.bin && [ "$(ls frame-*.bin | wc -l)" = 10 ]'

# The IPA module in a process of its own, as libcamera runs one whose signature does not verify
# (Debian's are signed, so by default it runs in a thread of cam).
isolated() {
  LIBCAMERA_IPA_FORCE_ISOLATION=1 cam -c 1 --capture=10 > isolated-cam.out 2>&1 &
  pid=$! seen=no
  while kill -0 $pid 2>/dev/null; do
    ps -eo args | grep -q '^[^ ]*vimc_ipa_proxy' && seen=yes
    sleep 0.2
  done
  wait $pid; rc=$?
  cat isolated-cam.out
  echo "cam: status $rc; a vimc_ipa_proxy process seen: $seen"
  [ $rc = 0 ] && [ $seen = yes ]
}
step cam-capture-isolated isolated

# A second cam while the first captures must fail: the camera is busy.
busy() {
  cam -c 1 --capture=100 > busy-first.out 2>&1 &
  first=$! i=0
  until grep -q 'seq: 000001' busy-first.out; do
    i=$((i + 1))
    [ $i -le 240 ] && kill -0 $first 2>/dev/null || { echo "the first cam never captured:"; cat busy-first.out; return 1; }
    sleep 0.25
  done
  echo "== cam -c 1 --capture=1 while the first captures:"
  cam -c 1 --capture=1; second=$?
  echo "== status $second; the first still capturing: $(kill -0 $first 2>/dev/null && echo yes || echo no)"
  echo "== cam -l while the first captures:"
  cam -l
  kill -INT $first; wait $first
  echo "== the first cam: status $? after $(grep -c 'seq: ' busy-first.out) frames"
  [ $second -ne 0 ]
}
step busy busy
step media-ctl sh -c 'for m in /dev/media*; do media-ctl -d "$m" -p | grep -q "^driver *vimc" && media-ctl -d "$m" -p; done; true'
