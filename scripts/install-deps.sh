#!/usr/bin/env bash
# Installs the Debian packages CaptureKit builds and tests with, plus any packages named as
# arguments (benchmarks' peer tools), when any is missing. Idempotent and quiet when everything
# is present. Needs root or sudo for apt-get.
set -euo pipefail

packages=(
  pkg-config
  libavutil-dev libswscale-dev libswresample-dev   # CFFmpeg shim: pixel conversion, resampling,
  libavcodec-dev libavformat-dev                    #   encoding, decoding, muxing
  ffmpeg                                            # ffprobe for tests, peer tool for benchmarks
  libturbojpeg0-dev libexif-dev libheif-dev         # photos: JPEG from YUV planes, EXIF, HEIF (x265)
  libtiff-dev dcraw                                 # raw photos: DNG by libtiff; tests: dcraw reads DNG
  libyuv-dev                                        # motion: luma downscaling
  libimage-exiftool-perl libheif-examples           # tests: exiftool reads EXIF, heif-convert decodes HEIF
  strace                                            # tests: a command killed at a chosen system call (library crash safety)
  libsqlite3-dev                                    # media library index (SQLite, WAL)
  libzbar-dev libzxing-dev                          # metadata output: barcodes, QR (ZBar), Data Matrix, PDF417 (zxing-cpp)
  zbar-tools qrencode barcode zint                  # tests/bench: zbarimg reads codes qrencode, GNU barcode and zint encode
  libsdl2-dev libmicrohttpd-dev                     # live preview: SDL2 window, libmicrohttpd web page
  xvfb x11-apps xdotool                             # preview tests: Xvfb display, xwd screenshots, resizes
  chromium chromium-driver python3-selenium curl    # web preview tests: headless browser, raw requests
  linux-libc-dev                                    # CV4L2 shim: linux/videodev2.h (cameras)
  libasound2-dev alsa-utils                         # ALSA backend (CALSA shim); arecord to check PCMs by hand
  libasound2-plugins sox                            # tests: ALSA 'pulse' plugin; tone files and endless tones (sources)
  libpulse-dev                                      # sound-server backend (CPulse shim: libpulse)
  pulseaudio pulseaudio-utils                       # tests: private PulseAudio daemon, pactl, parecord
  pipewire pipewire-bin pipewire-pulse wireplumber  # tests: private PipeWire stack (pw-cat tonemic, pulse server)
  qemu-system-x86 v4l-utils                         # V4L2 tests: a VM with the kernel's vivid camera; v4l2-ctl as oracle
  gcc make libc6-dev libelf1 libssl3 xz-utils patch #   building v4l2loopback, vimc, vimc_raw (patched) and the producer (scripts/vm/setup.sh)
  libsrt-gnutls-dev                                 # stream output: SRT link statistics (libsrt, as FFmpeg links it)
  libpipewire-0.3-dev libspa-0.2-dev                # PipeWire cameras (CPipeWire shim: libpipewire, SPA pods)
  libcamera-dev                                     # libcamera cameras (CLibCamera shim, C++)
  libcamera-tools libcamera-ipa udev                # tests: cam as the oracle, vimc's IPA module, udevd in the VM
  libsystemd-dev                                    # the Camera portal over D-Bus (CSDBus shim: sd-bus)
  xdg-desktop-portal dbus-daemon dbus-bin python3-gi  # tests: the real Camera portal on a private session bus, a test Access backend
  gstreamer1.0-pipewire gstreamer1.0-tools          #   and a camera node the portal shows (pipewiresink)
  nginx libnginx-mod-rtmp srt-tools iproute2        # stream tests: nginx-rtmp, srt-live-transmit, tc/ip for a slow link
  python3-gst-1.0 gir1.2-gst-rtsp-server-1.0        # network camera tests: GStreamer's RTSP server
  faketime                                          #   and its clock set off from this machine's (libfaketime)
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad   # its test pattern, RTP and H.264 (openh264enc)
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v swift >/dev/null 2>&1; then
  echo "install-deps: 'swift' is not on PATH; install the Swift 6 toolchain first (swift.org)" >&2
  exit 1
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Installing nginx starts the system's server on port 80; the tests run private ones only.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet nginx 2>/dev/null; then
  $sudo systemctl disable --now nginx >/dev/null 2>&1 || true
fi
[ -f /run/nginx.pid ] && $sudo kill "$(cat /run/nginx.pid)" 2>/dev/null || true
