#!/bin/sh
# /init of the test VM's initramfs (busybox). Loads vivid (options from `vividopts=` on the
# kernel command line, `:`-separated), v4l2loopback, snd-aloop and what vimc needs, mounts the
# two 9p shares, and runs `$hostshare/guest.sh` chrooted into the host's root (exported
# read-only), so the host's own dynamically linked programs (the Swift test bundle, v4l2-ctl,
# ffmpeg) run unchanged against the guest's /dev/video*. The results come back through the
# writable share.
export PATH=/bin:/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
up() { cut -d' ' -f1 /proc/uptime; }
arg() { tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p" | tail -1; }
echo "INIT: kernel $(uname -r) up at $(up)s"
# Foundation's run-loop sockets (Process, CFSocket) bind to 127.0.0.1: the loopback must be up.
ip link set lo up
VOPTS=$(arg vividopts | tr ':' ' ')
HOSTWORK=$(arg hostwork)     # the checkout: kept visible at its host path (it may live under /tmp)
HOSTSHARE=$(arg hostshare)   # host path of the writable share: mounted at /mnt, rebound there
LOOPBACK=$(arg loopback)
SHARE=0; HOST=0
if modprobe virtio_pci && modprobe 9pnet_virtio && modprobe 9p; then
  # cache=loose: the default and mmap modes make loading the big Swift libraries pathological;
  # msize 512000 for throughput.
  mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 hostshare /mnt && SHARE=1
  mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose hostroot /host && HOST=1
fi
modprobe vivid $VOPTS || echo "INIT: modprobe vivid $VOPTS FAILED"
if [ "$LOOPBACK" = 1 ]; then
  # exclusive_caps: the node is a capture device only while a producer feeds it, as browsers expect
  modprobe v4l2loopback video_nr=10 exclusive_caps=1 card_label="CaptureKit Loopback" \
    || echo "INIT: modprobe v4l2loopback FAILED"
fi
# vimc (libcamera's virtual camera) is loaded by the guest scripts that want it (load_vimc in
# guest-prologue.sh, insmod from the share) and only by them: the V4L2 suites count the cameras
# they find (vivid's four and the loopback). Its dependencies are loaded here, where modprobe
# finds them (the chroot's /lib/modules is the host's); vivid uses them all today.
for m in $(sed -n 's|^extra/vimc.ko:||p' "/lib/modules/$(uname -r)/modules.dep"); do
  m=${m##*/}; modprobe "${m%.ko}" || echo "INIT: modprobe ${m%.ko} (for vimc) FAILED"
done
# ALSA's loopback sound card (one substream per device, so `hw:CARD=Loopback,DEV=1` is the
# capture side of what plays into `hw:Loopback,0,0`); devtmpfs makes /dev/snd/* in the chroot.
modprobe snd-aloop pcm_substreams=1 || echo "INIT: modprobe snd-aloop FAILED"
echo "INIT: share=$SHARE hostroot=$HOST devices: $(ls /dev/video* /dev/media* /dev/snd/pcm* 2>/dev/null | tr '\n' ' ')at $(up)s"
if [ $SHARE = 1 ] && [ $HOST = 1 ] && [ -n "$HOSTSHARE" ]; then
  if [ -n "$HOSTWORK" ]; then mkdir -p /work0; mount --bind "/host$HOSTWORK" /work0; fi
  mount -t devtmpfs dev /host/dev
  mount -t proc proc /host/proc       # Swift resolves $ORIGIN runpaths through /proc/self/exe
  mount -t sysfs sys /host/sys
  mount -t tmpfs tmp /host/tmp
  mkdir -p /host/dev/shm /host/dev/pts
  mount -t tmpfs shm /host/dev/shm
  mount -t devpts pts /host/dev/pts
  mount -t tmpfs run /host/run 2>/dev/null
  # (under /tmp these paths are in the fresh tmpfs: make them)
  if [ -n "$HOSTWORK" ]; then mkdir -p "/host$HOSTWORK"; mount --bind /work0 "/host$HOSTWORK"; fi
  mkdir -p "/host$HOSTSHARE" 2>/dev/null
  mount --bind /mnt "/host$HOSTSHARE" || echo "INIT: cannot bind the share at $HOSTSHARE"
  echo "INIT: chroot ready at $(up)s"
  # The host root is moved over the initramfs's in a mount namespace of its own (as switch_root
  # does) before the chroot: the kernel refuses user namespaces to a chrooted process
  # (unshare(CLONE_NEWUSER): EPERM), and libcamera runs an IPA module whose signature does not
  # verify (any, with LIBCAMERA_IPA_FORCE_ISOLATION=1) in a process that unshares one.
  unshare -m /bin/sh -c 'cd /host && mount --move . / && exec chroot . "$@"' sh \
    /usr/bin/env -i HOME=/tmp CFFIXED_USER_HOME=/tmp LANG=C.UTF-8 TERM=dumb \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin SHARE="$HOSTSHARE" \
      /bin/sh -c 'cd "$SHARE" && exec /bin/sh ./guest.sh' 2>&1
  echo "INIT: guest.sh exit=$?"
else
  echo "INIT: shares missing, nothing to run"
fi
echo "INIT: done at $(up)s"
sync
umount -l /host 2>/dev/null
[ $SHARE = 1 ] && umount -l /mnt
poweroff -f
