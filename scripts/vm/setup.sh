#!/usr/bin/env bash
# Prepares the V4L2 test VM: Debian's own kernel (the guest runs the kernel's `vivid` virtual
# camera driver, which a container cannot load), a busybox initramfs, `v4l2loopback` built from
# Debian's dkms source (it adds an MJPEG camera), `vimc` built from Debian's kernel source (a
# media-controller camera for libcamera) and a copy of it as a raw sensor (vimc-raw.patch, for
# libcamera's simple pipeline handler and raw role), a copy of vivid as a USB camera
# (vivid-uvc.patch, for libcamera's uvcvideo handler), the loopback producer and its reference JPEG.
# Everything comes from Debian's apt repositories (`apt-get download`, nothing installed) and
# is cached under .vm-cache/<kernel ABI>/ (git-ignored). Idempotent: a complete cache is reused.
#   KV=6.1.0-57-amd64   kernel ABI (default: the one linux-image-amd64 depends on)
#   VM_CACHE=dir        cache root (default: .vm-cache in the checkout)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${VM_CACHE:-$root/.vm-cache}

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# apt-get download needs package lists; a fresh container has none.
apt-cache show linux-image-amd64 >/dev/null 2>&1 || $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq

KV=${KV:-$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/.*Depends: linux-image-\([0-9].*-amd64\).*/\1/p' | head -1)}
[ -n "$KV" ] || { echo "vm/setup: cannot resolve the kernel ABI of linux-image-amd64 (apt-get update?)" >&2; exit 1; }
out="$cache/$KV"
stamp="$out/.complete"
inputs_hash=$(cat "$here/setup.sh" "$here/lbproducer.c" "$here/vimc-raw.patch" "$here/vivid-uvc.patch" | sha256sum | cut -c1-16)
init_hash=$(sha256sum < "$here/guest-init.sh" | cut -c1-16)

# The init script changes more often than the rest: repacking the initramfs takes a second.
pack_initramfs() {
  cp "$here/guest-init.sh" "$out/initramfs/init"; chmod +x "$out/initramfs/init"
  (cd "$out/initramfs" && find . | "$out/initramfs/bin/busybox" cpio -o -H newc -R 0:0 2>/dev/null | gzip -1) > "$out/initramfs.cpio.gz"
  echo "$init_hash" > "$out/.init"
}
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$inputs_hash" ]; then
  [ "$(cat "$out/.init" 2>/dev/null)" = "$init_hash" ] || pack_initramfs
  exit 0
fi
echo "vm/setup: preparing the test VM for kernel $KV in $out" >&2
rm -rf "$out"; mkdir -p "$out/debs" "$out/root" "$out/lb"
cd "$out"

fetch() { (cd debs && apt-get download "$@" 2>&1 | grep -v -e '^W:' -e '^Get:' -e '^Fetched' || true); }
# 1. kernel + modules, busybox: extracted only (installing linux-image would run grub hooks)
fetch "linux-image-$KV" busybox-static
for f in debs/linux-image-"$KV"*.deb debs/busybox-static*.deb; do dpkg-deb -x "$f" root; done
[ -x root/bin/busybox ] && [ -d "root/lib/modules/$KV" ] || { echo "vm/setup: download of the kernel or busybox failed" >&2; exit 1; }
root/bin/busybox depmod -b root "$KV"      # the .deb has no modules.dep (its postinst makes it)

# 2. v4l2loopback, built out of tree against the matching headers (Debian's dkms source)
abi=${KV%-amd64}
kbuild=$(apt-cache depends "linux-headers-$abi-common" 2>/dev/null | sed -n 's/.*Depends: \(linux-kbuild-[0-9.]*\).*/\1/p' | head -1)
fetch v4l2loopback-dkms "linux-headers-$KV" "linux-headers-$abi-common" "${kbuild:-linux-kbuild-6.1}"
for f in debs/v4l2loopback-dkms*.deb debs/linux-headers-*.deb debs/linux-kbuild-*.deb; do dpkg-deb -x "$f" lb; done
sed -i "s|include /usr/src/|include $out/lb/usr/src/|" "lb/usr/src/linux-headers-$KV/Makefile"
cp -r lb/usr/src/v4l2loopback-* v4l2loopback-src
make -s -C "$out/lb/usr/src/linux-headers-$KV" M="$out/v4l2loopback-src" modules >&2
cp v4l2loopback-src/v4l2loopback.ko .

# 2b. vimc (libcamera's virtual camera: a sensor, debayer and scaler behind a media controller),
#     which Debian's kernel config leaves out (CONFIG_VIDEO_VIMC is not set) while it has what the
#     driver selects: MEDIA_CONTROLLER, VIDEO_V4L2_SUBDEV_API, V4L2_TPG, VIDEOBUF2_VMALLOC and
#     _DMA_CONTIG as modules, FONT_8x16 built in. Its source comes from the linux-source package
#     of the very version of the kernel image (another version's driver may not match the
#     headers): a 139 MB download, of which only vimc's and vivid's directories are extracted
#     (~9 s, xz has to go through the whole tarball); the build takes ~6 s.
kver=$(dpkg-deb -f debs/linux-image-"$KV"_*.deb Version)
series=$(echo "$KV" | cut -d. -f1,2)
fetch "linux-source-$series=$kver"
srcdeb=$(ls debs/linux-source-"$series"_*.deb 2>/dev/null) || { echo "vm/setup: download of linux-source-$series $kver failed" >&2; exit 1; }
mkdir drivers
dpkg-deb --fsys-tarfile "$srcdeb" | tar -xO "./usr/src/linux-source-$series.tar.xz" \
  | tar -xJ -C drivers --strip-components=4 "linux-source-$series/drivers/media/test-drivers/vimc/" \
      "linux-source-$series/drivers/media/test-drivers/vivid/"
[ -f drivers/vimc/vimc-core.c ] && [ -f drivers/vivid/vivid-core.c ] \
  || { echo "vm/setup: no vimc or vivid source in linux-source-$series $kver" >&2; exit 1; }
cp -r drivers/vimc vimc-raw-src   # the sources only, before vimc's build products join them
make -s -C "$out/lb/usr/src/linux-headers-$KV" M="$out/drivers/vimc" CONFIG_VIDEO_VIMC=m modules >&2
# (Debian strips its modules: unstripped, vimc.ko is 2.5 MB of debug information in the initramfs)
strip --strip-debug -o vimc.ko drivers/vimc/vimc.ko
# 2c. the same driver as a raw sensor behind a CSI-2 receiver (vimc_raw.ko: see vimc-raw.patch).
patch -s -d vimc-raw-src -p1 < "$here/vimc-raw.patch"
make -s -C "$out/lb/usr/src/linux-headers-$KV" M="$out/vimc-raw-src" modules >&2
strip --strip-debug -o vimc_raw.ko vimc-raw-src/vimc_raw.ko
# 2d. vivid as a USB camera that libcamera's uvcvideo handler lists too (vivid_uvc.ko: see
#     vivid-uvc.patch; ~15 s): one camera both backends reach.
patch -s -d drivers/vivid -p1 < "$here/vivid-uvc.patch"
make -s -C "$out/lb/usr/src/linux-headers-$KV" M="$out/drivers/vivid" modules >&2
strip --strip-debug -o vivid_uvc.ko drivers/vivid/vivid_uvc.ko

# 3. the loopback producer (runs in the guest's chroot into the host root, so a normal
#    dynamically linked program) and the JPEG it serves: SMPTE bars, decodable by anyone.
${CC:-cc} -O2 -Wall -Werror -o lbproducer "$here/lbproducer.c"
ffmpeg -nostdin -loglevel error -f lavfi -i smptebars=size=640x480 -frames:v 1 -q:v 3 -pix_fmt yuvj422p reference.jpg

# 4. initramfs: busybox + the module closure of vivid, v4l2loopback, vimc, snd-aloop (ALSA's
#    loopback sound card, for the ALSA backend) and virtio-9p, and our init
I="$out/initramfs"
mkdir -p "$I"/{bin,sbin,proc,sys,dev,mnt,tmp,host,lib/modules/"$KV"/extra}
cp root/bin/busybox "$I/bin/busybox"
for a in $("$I/bin/busybox" --list); do [ "$a" = busybox ] || ln -sf busybox "$I/bin/$a"; done
want="kernel/drivers/media/test-drivers/vivid/vivid.ko kernel/drivers/virtio/virtio_pci.ko kernel/net/9p/9pnet_virtio.ko kernel/fs/9p/9p.ko kernel/drivers/media/v4l2-core/videodev.ko kernel/drivers/media/common/videobuf2/videobuf2-vmalloc.ko kernel/sound/drivers/snd-aloop.ko"
# vimc's dependencies (modinfo's depends: mc, videodev, videobuf2-v4l2 and -common come with these)
want="$want kernel/drivers/media/common/v4l2-tpg/v4l2-tpg.ko kernel/drivers/media/common/videobuf2/videobuf2-dma-contig.ko"
for m in $want; do
  grep "^$m:" "root/lib/modules/$KV/modules.dep" | tr -d ':' | tr ' ' '\n'
done | sort -u | while read -r m; do
  [ -n "$m" ] || continue
  mkdir -p "$I/lib/modules/$KV/$(dirname "$m")"
  cp "root/lib/modules/$KV/$m" "$I/lib/modules/$KV/$m"
done
find "$I/lib/modules" -name '*.ko.xz' -exec xz -d {} +
cp v4l2loopback.ko vimc.ko "$I/lib/modules/$KV/extra/"
cp "root/lib/modules/$KV/modules.builtin" "root/lib/modules/$KV/modules.order" "$I/lib/modules/$KV/"
root/bin/busybox depmod -b "$I" "$KV"
pack_initramfs

# 5. uncompressed kernel: qemu boots an ELF vmlinux through PVH, skipping the XZ decompression
#    that takes seconds under software emulation.
offset=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "root/boot/vmlinuz-$KV" | head -1 | cut -d: -f1 || true)
[ -n "$offset" ] && tail -c +"$((offset + 1))" "root/boot/vmlinuz-$KV" | xz -dcq > vmlinux 2>/dev/null || true
head -c 4 vmlinux | grep -q ELF || { echo "vm/setup: cannot extract vmlinux" >&2; exit 1; }

# keep only what run.sh needs
rm -rf debs lb root v4l2loopback-src drivers vimc-raw-src
echo "$inputs_hash" > "$stamp"
echo "vm/setup: ready ($(du -sh "$out" | cut -f1))" >&2
