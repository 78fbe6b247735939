/* uvcgadget: a USB Video Class webcam made in userspace, so the test VM has a real UVC camera
 * (the kernel's uvcvideo driver on one side, libcamera's `uvcvideo` pipeline handler able to see
 * it too) without any hardware.
 *   uvcgadget GADGETFS_DIR [FPS=30]        (GADGETFS_DIR: where gadgetfs is mounted, /dev/gadget)
 *
 * Why gadgetfs and not the kernel's UVC gadget function (usb_f_uvc through configfs): the only
 * device controller a VM has is dummy_hcd, which emulates bulk and interrupt endpoints but no
 * isochronous ones, and usb_f_uvc streams only isochronously (its bind fails with "Unable to
 * allocate streaming EP"). UVC also allows a bulk streaming endpoint, which uvcvideo supports,
 * so this program is the whole device: gadgetfs hands it the descriptors to present and every
 * control request the kernel does not answer itself, and it writes the video payloads to a bulk
 * IN endpoint.
 *
 * The camera: "CaptureKit UVC Gadget" (1d6b:0102, serial CK0001), UVC 1.1, one camera input
 * terminal with no controls (bmControls all 0, no processing unit: the host has no control to
 * ask for), one streaming interface offering uncompressed YUYV at 320x240 (the default) and
 * 640x480, 30 fps each. It answers the streaming interface's probe and commit controls
 * (GET_CUR/MIN/MAX/DEF/LEN/INFO, SET_CUR) and stalls every other class request.
 *
 * The frames: eight vertical bars, bar i (of width WIDTH/8) with the YUYV samples
 * Y = 16 + 29 i, U = 64 + 16 i, V = 192 - 16 i, except the first 8 bytes of the first row,
 * which hold the frame's number (little-endian 64-bit, counting from 0 across streams), so a
 * consumer can check both the pixels and the order of the frames it got.
 *
 * Stream start and stop: uvcvideo commits the streaming parameters (SET_CUR VS_COMMIT_CONTROL)
 * right before it starts reading, so a commit starts a fresh frame. Stopping a bulk stream sends
 * nothing the gadget sees (the host's CLEAR_FEATURE(ENDPOINT_HALT) is answered by dummy_hcd
 * itself), and the host reads again right after its next commit, sooner than this program can
 * react to it: a payload the stopped host half read and left queued would reach the next stream
 * first, out of step with its headers. So the gadget stops sending, its pending write abandoned
 * (the request dequeued), whenever the host negotiates (SET_CUR VS_PROBE_CONTROL: uvcvideo
 * probes at every VIDIOC_S_FMT and VIDIOC_S_PARM, which it refuses while streaming) and when a
 * write has not been taken for a second (the host stopped); a commit then starts a clean
 * stream. Each payload is at most one host transfer (16 KiB, what
 * uvcvideo reads per URB) with a 2-byte header (end of header, frame id toggled per frame, end of
 * frame on a frame's last payload). */
#define _GNU_SOURCE
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/usb/ch9.h>
#include <linux/usb/gadgetfs.h>
#include <linux/usb/video.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAYLOAD_SIZE 16384          /* bytes per bulk payload, header included */
#define HEADER_SIZE 2               /* bHeaderLength, bmHeaderInfo */
#define EP_IN_NAME "ep1in-bulk"     /* one of dummy_hcd's bulk IN endpoints */
#define EP_IN_ADDRESS 0x81
#define STALL_NS 1000000000LL       /* a write untaken this long: the host stopped streaming */

static const struct { int width, height; } frames[] = { { 320, 240 }, { 640, 480 } };
#define FRAME_COUNT (int)(sizeof frames / sizeof frames[0])

static const char *strings[] = { NULL, "CaptureKit", "CaptureKit UVC Gadget", "CK0001" };

/* ---- state shared by the control thread, the streaming thread and the watchdog ---- */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int ep_fd = -1;              /* the bulk endpoint, once configured */
static int streaming;               /* set by a commit, cleared by a stall or a disconnect */
static unsigned generation;         /* bumped by every commit and stop: the streamer restarts */
static int committed_frame = 1;     /* bFrameIndex of the last commit (1-based) */
static pthread_t streamer;
static volatile long long write_started_ns;   /* when the streamer's pending write began, or 0 */
static int fps = 30;

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void say(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	fprintf(stderr, "uvcgadget: ");
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
	va_end(args);
}

/* ---- descriptors ---- */
struct bytes { uint8_t data[1024]; int length; };
static void u8(struct bytes *b, unsigned v) { b->data[b->length++] = (uint8_t)v; }
static void le16(struct bytes *b, unsigned v) { u8(b, v & 0xff); u8(b, v >> 8); }
static void le32(struct bytes *b, uint32_t v) { le16(b, v & 0xffff); le16(b, v >> 16); }
static void patch16(struct bytes *b, int at, unsigned v) { b->data[at] = v & 0xff; b->data[at + 1] = (uint8_t)(v >> 8); }

static void device_descriptor(struct bytes *b)
{
	u8(b, USB_DT_DEVICE_SIZE); u8(b, USB_DT_DEVICE);
	le16(b, 0x0200);                                  /* bcdUSB */
	u8(b, USB_CLASS_MISC); u8(b, 0x02); u8(b, 0x01);  /* interface association descriptors */
	u8(b, 64);                                        /* bMaxPacketSize0 (gadgetfs sets it) */
	le16(b, 0x1d6b); le16(b, 0x0102);                 /* Linux Foundation, webcam gadget */
	le16(b, 0x0100);                                  /* bcdDevice */
	u8(b, 1); u8(b, 2); u8(b, 3);                     /* manufacturer, product, serial */
	u8(b, 1);                                         /* bNumConfigurations */
}

/* The configuration at full speed (64-byte bulk packets) or high speed (512). */
static void configuration(struct bytes *b, int high_speed)
{
	u8(b, USB_DT_CONFIG_SIZE); u8(b, USB_DT_CONFIG);
	le16(b, 0);                                       /* wTotalLength, patched below */
	u8(b, 2); u8(b, 1); u8(b, 0);                     /* 2 interfaces, configuration 1, no string */
	u8(b, USB_CONFIG_ATT_ONE | USB_CONFIG_ATT_SELFPOWER); u8(b, 50);

	/* interface association: video control 0 and video streaming 1 are one function */
	u8(b, 8); u8(b, USB_DT_INTERFACE_ASSOCIATION);
	u8(b, 0); u8(b, 2); u8(b, USB_CLASS_VIDEO); u8(b, UVC_SC_VIDEO_INTERFACE_COLLECTION); u8(b, 0); u8(b, 0);

	/* video control interface, no interrupt endpoint */
	u8(b, USB_DT_INTERFACE_SIZE); u8(b, USB_DT_INTERFACE);
	u8(b, 0); u8(b, 0); u8(b, 0); u8(b, USB_CLASS_VIDEO); u8(b, UVC_SC_VIDEOCONTROL); u8(b, 0); u8(b, 0);
	int vc = b->length;
	u8(b, 13); u8(b, USB_DT_CS_INTERFACE); u8(b, UVC_VC_HEADER);
	le16(b, 0x0110);                                  /* UVC 1.1 */
	le16(b, 0);                                       /* wTotalLength of the class descriptors */
	le32(b, 48000000);                                /* dwClockFrequency */
	u8(b, 1); u8(b, 1);                               /* one streaming interface: 1 */
	/* camera input terminal 1, no controls */
	u8(b, 18); u8(b, USB_DT_CS_INTERFACE); u8(b, UVC_VC_INPUT_TERMINAL);
	u8(b, 1); le16(b, UVC_ITT_CAMERA); u8(b, 0); u8(b, 0);
	le16(b, 0); le16(b, 0); le16(b, 0);               /* focal lengths */
	u8(b, 3); u8(b, 0); u8(b, 0); u8(b, 0);           /* bControlSize, bmControls */
	/* output terminal 2 (USB streaming), fed by the camera */
	u8(b, 9); u8(b, USB_DT_CS_INTERFACE); u8(b, UVC_VC_OUTPUT_TERMINAL);
	u8(b, 2); le16(b, UVC_TT_STREAMING); u8(b, 0); u8(b, 1); u8(b, 0);
	patch16(b, vc + 5, (unsigned)(b->length - vc));

	/* video streaming interface: its bulk endpoint is in alternate setting 0 */
	u8(b, USB_DT_INTERFACE_SIZE); u8(b, USB_DT_INTERFACE);
	u8(b, 1); u8(b, 0); u8(b, 1); u8(b, USB_CLASS_VIDEO); u8(b, UVC_SC_VIDEOSTREAMING); u8(b, 0); u8(b, 0);
	int vs = b->length;
	u8(b, 14); u8(b, USB_DT_CS_INTERFACE); u8(b, UVC_VS_INPUT_HEADER);
	u8(b, 1);                                         /* bNumFormats */
	le16(b, 0);                                       /* wTotalLength, patched */
	u8(b, EP_IN_ADDRESS); u8(b, 0);                   /* bEndpointAddress, bmInfo */
	u8(b, 2);                                         /* bTerminalLink: output terminal 2 */
	u8(b, 0); u8(b, 0); u8(b, 0);                     /* no still capture, no trigger */
	u8(b, 1); u8(b, 0);                               /* bControlSize, bmaControls(1) */
	/* uncompressed YUY2 format 1 */
	static const uint8_t yuy2[16] = { 'Y', 'U', 'Y', '2', 0x00, 0x00, 0x10, 0x00,
					  0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71 };
	u8(b, 27); u8(b, USB_DT_CS_INTERFACE); u8(b, UVC_VS_FORMAT_UNCOMPRESSED);
	u8(b, 1); u8(b, FRAME_COUNT);
	for (int i = 0; i < 16; i++) u8(b, yuy2[i]);
	u8(b, 16); u8(b, 1);                              /* bits per pixel, default frame */
	u8(b, 0); u8(b, 0); u8(b, 0); u8(b, 0);           /* aspect ratio, interlace, copy protect */
	for (int i = 0; i < FRAME_COUNT; i++) {
		uint32_t size = (uint32_t)(frames[i].width * frames[i].height * 2);
		u8(b, 30); u8(b, USB_DT_CS_INTERFACE); u8(b, UVC_VS_FRAME_UNCOMPRESSED);
		u8(b, i + 1); u8(b, 0);
		le16(b, frames[i].width); le16(b, frames[i].height);
		le32(b, size * 8 * 30); le32(b, size * 8 * 30);   /* bit rates */
		le32(b, size);                                    /* dwMaxVideoFrameBufferSize */
		le32(b, 333333);                                  /* default interval: 30 fps */
		u8(b, 1); le32(b, 333333);                        /* one discrete interval */
	}
	/* colour matching: BT.709 primaries and transfer, BT.601 matrix (what YUYV webcams say) */
	u8(b, 6); u8(b, USB_DT_CS_INTERFACE); u8(b, UVC_VS_COLORFORMAT); u8(b, 1); u8(b, 1); u8(b, 4);
	patch16(b, vs + 4, (unsigned)(b->length - vs));
	/* the bulk IN endpoint */
	u8(b, USB_DT_ENDPOINT_SIZE); u8(b, USB_DT_ENDPOINT);
	u8(b, EP_IN_ADDRESS); u8(b, USB_ENDPOINT_XFER_BULK); le16(b, high_speed ? 512 : 64); u8(b, 0);

	patch16(b, 2, (unsigned)b->length);
}

/* ---- the probe and commit controls ---- */
static struct uvc_streaming_control probe, commit;

/* The streaming parameters of frame `index` (1-based; out of range: the default, 1). */
static void parameters(struct uvc_streaming_control *c, int index)
{
	if (index < 1 || index > FRAME_COUNT) index = 1;
	memset(c, 0, sizeof *c);
	c->bmHint = htole16(1);
	c->bFormatIndex = 1;
	c->bFrameIndex = (uint8_t)index;
	c->dwFrameInterval = htole32(333333);
	c->dwMaxVideoFrameSize = htole32((uint32_t)(frames[index - 1].width * frames[index - 1].height * 2));
	c->dwMaxPayloadTransferSize = htole32(PAYLOAD_SIZE);
	c->dwClockFrequency = htole32(48000000);
	c->bmFramingInfo = 3;
	c->bPreferedVersion = c->bMinVersion = c->bMaxVersion = 1;
}

/* ---- the streaming thread ---- */
static void on_signal(int signal) { (void)signal; }   /* only interrupts a blocking write */

/* Writes one payload; returns 0, or -1 with errno (EINTR: abandoned by a commit or a stall). */
static int write_payload(int fd, const uint8_t *data, size_t length)
{
	write_started_ns = now_ns();
	ssize_t n = write(fd, data, length);
	write_started_ns = 0;
	if (n == (ssize_t)length) return 0;
	if (n >= 0) errno = EIO;
	return -1;
}

static void *stream_frames(void *unused)
{
	(void)unused;
	static uint8_t frame[640 * 480 * 2], payload[PAYLOAD_SIZE];
	uint64_t number = 0;
	uint8_t fid = 0;
	for (;;) {
		pthread_mutex_lock(&lock);
		while (!streaming || ep_fd < 0) pthread_cond_wait(&changed, &lock);
		unsigned mine = generation;
		int fd = ep_fd, index = committed_frame;
		pthread_mutex_unlock(&lock);

		int width = frames[index - 1].width, height = frames[index - 1].height;
		size_t size = (size_t)width * height * 2;
		say("streaming %dx%d YUYV from frame %llu", width, height, (unsigned long long)number);
		long long period = 1000000000LL / fps, next = now_ns();
		int stop = 0, partial = 0;
		while (!stop) {
			/* the bars, then the frame number over the first 8 bytes */
			for (int x = 0; x < width; x += 2) {
				int bar = x * 8 / width;
				uint8_t pair[4] = { (uint8_t)(16 + 29 * bar), (uint8_t)(64 + 16 * bar),
						    (uint8_t)(16 + 29 * bar), (uint8_t)(192 - 16 * bar) };
				memcpy(frame + x * 2, pair, 4);
			}
			for (int y = 1; y < height; y++) memcpy(frame + (size_t)y * width * 2, frame, (size_t)width * 2);
			for (int i = 0; i < 8; i++) frame[i] = (uint8_t)(number >> (8 * i));

			for (size_t offset = 0; offset < size && !stop; offset += PAYLOAD_SIZE - HEADER_SIZE) {
				size_t chunk = size - offset < PAYLOAD_SIZE - HEADER_SIZE ? size - offset : PAYLOAD_SIZE - HEADER_SIZE;
				int last = offset + chunk == size;
				payload[0] = HEADER_SIZE;
				payload[1] = (uint8_t)(UVC_STREAM_EOH | fid | (last ? UVC_STREAM_EOF : 0));
				memcpy(payload + HEADER_SIZE, frame + offset, chunk);
				if (write_payload(fd, payload, chunk + HEADER_SIZE) == 0) continue;
				int error = errno;
				pthread_mutex_lock(&lock);
				if (generation == mine && error == EINTR) {
					say("the host took nothing for 1 s: it stopped streaming (frame %llu abandoned)", (unsigned long long)number);
					streaming = 0;
				} else if (generation == mine) {
					say("write: %s; waiting for the next commit", strerror(error));
					streaming = 0;
				}
				pthread_mutex_unlock(&lock);
				stop = partial = 1;
			}
			if (stop) break;
			number++;
			fid ^= UVC_STREAM_FID;
			if (number % 100 == 0) say("%llu frames sent", (unsigned long long)number);

			/* 30 fps on the monotonic clock; a late frame moves the schedule, never bursts */
			next += period;
			if (next < now_ns()) next = now_ns();
			struct timespec at = { (time_t)(next / 1000000000LL), (long)(next % 1000000000LL) };
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR) {}
			pthread_mutex_lock(&lock);
			stop = generation != mine || !streaming;
			pthread_mutex_unlock(&lock);
		}
		/* a frame abandoned half sent: the next one gets the other frame id, so the host never
		 * joins the two */
		if (partial) fid ^= UVC_STREAM_FID;
	}
	return NULL;
}

/* Interrupts the streamer's write when the host has taken nothing for STALL_NS. */
static void *watch_writes(void *unused)
{
	(void)unused;
	for (;;) {
		struct timespec tick = { 0, 100000000L };
		nanosleep(&tick, NULL);
		long long started = write_started_ns;
		if (started != 0 && now_ns() - started > STALL_NS) pthread_kill(streamer, SIGUSR1);
	}
	return NULL;
}

/* A commit or a stop: the streamer restarts (or pauses) at once. */
static void restart_stream(int start, int frame_index)
{
	pthread_mutex_lock(&lock);
	generation++;
	streaming = start;
	if (start) committed_frame = frame_index;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
	if (write_started_ns != 0) pthread_kill(streamer, SIGUSR1);
}

/* ---- control requests (ep0) ---- */
static int ep0;
static void reply(const void *data, size_t length, unsigned w_length)
{
	if (length > w_length) length = w_length;
	if (write(ep0, data, length) < 0) say("ep0 reply: %s", strerror(errno));
}
static void acknowledge(void) { if (read(ep0, NULL, 0) < 0) say("ep0 ack: %s", strerror(errno)); }
static void stall(const struct usb_ctrlrequest *r)
{
	/* gadgetfs stalls on an i/o call in the wrong direction */
	int status = (r->bRequestType & USB_DIR_IN) ? (int)read(ep0, NULL, 0) : (int)write(ep0, NULL, 0);
	if (status >= 0 || errno != EL2HLT) say("cannot stall request %02x.%02x", r->bRequestType, r->bRequest);
}

/* Opens and enables the bulk endpoint (at SET_CONFIGURATION, when the speed is known). */
static void enable_endpoint(const char *dir)
{
	if (ep_fd >= 0) return;
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, EP_IN_NAME);
	int fd = open(path, O_RDWR);
	if (fd < 0) { say("%s: %s", path, strerror(errno)); return; }
	struct bytes b = { .length = 0 };
	le32(&b, 1);                                      /* gadgetfs endpoint message tag */
	for (int speed = 0; speed < 2; speed++) {         /* full speed, then high speed */
		u8(&b, USB_DT_ENDPOINT_SIZE); u8(&b, USB_DT_ENDPOINT);
		u8(&b, EP_IN_ADDRESS); u8(&b, USB_ENDPOINT_XFER_BULK); le16(&b, speed ? 512 : 64); u8(&b, 0);
	}
	if (write(fd, b.data, (size_t)b.length) != b.length) { say("configuring %s: %s", path, strerror(errno)); close(fd); return; }
	pthread_mutex_lock(&lock);
	ep_fd = fd;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
	say("%s enabled", EP_IN_NAME);
}

static void string_descriptor(unsigned index, unsigned w_length, const struct usb_ctrlrequest *r)
{
	uint8_t d[128];
	if (index == 0) {
		d[0] = 4; d[1] = USB_DT_STRING; d[2] = 0x09; d[3] = 0x04;   /* English (US) */
		reply(d, 4, w_length);
		return;
	}
	if (index >= sizeof strings / sizeof strings[0]) { stall(r); return; }
	size_t n = strlen(strings[index]);
	d[0] = (uint8_t)(2 + 2 * n); d[1] = USB_DT_STRING;
	for (size_t i = 0; i < n; i++) { d[2 + 2 * i] = (uint8_t)strings[index][i]; d[3 + 2 * i] = 0; }
	reply(d, d[0], w_length);
}

static void setup(const struct usb_ctrlrequest *r, const char *dir)
{
	unsigned value = le16toh(r->wValue), index = le16toh(r->wIndex), length = le16toh(r->wLength);
	switch (r->bRequestType & USB_TYPE_MASK) {
	case USB_TYPE_STANDARD:
		if (r->bRequest == USB_REQ_GET_DESCRIPTOR && (value >> 8) == USB_DT_STRING) {
			string_descriptor(value & 0xff, length, r);
		} else if (r->bRequest == USB_REQ_SET_CONFIGURATION) {
			if ((value & 0xff) != 0) enable_endpoint(dir);
			else restart_stream(0, 0);
			say("configuration %u", value & 0xff);
			acknowledge();
		} else if (r->bRequest == USB_REQ_SET_INTERFACE) {
			/* uvcvideo selects alternate setting 0 (the only one) before probing */
			acknowledge();
		} else {
			stall(r);
		}
		return;
	case USB_TYPE_CLASS:
		break;
	default:
		stall(r);
		return;
	}
	/* class requests: only the streaming interface's probe and commit controls exist */
	unsigned selector = value >> 8;
	if ((index & 0xff) != 1 || (selector != UVC_VS_PROBE_CONTROL && selector != UVC_VS_COMMIT_CONTROL)) {
		if (r->bRequestType & USB_DIR_IN) stall(r);
		else { uint8_t sink[64]; if (read(ep0, sink, length < sizeof sink ? length : sizeof sink) < 0) say("ep0 read: %s", strerror(errno)); }
		return;
	}
	struct uvc_streaming_control *control = selector == UVC_VS_PROBE_CONTROL ? &probe : &commit;
	switch (r->bRequest) {
	case UVC_SET_CUR: {
		struct uvc_streaming_control asked;
		memset(&asked, 0, sizeof asked);
		ssize_t n = read(ep0, &asked, sizeof asked < length ? sizeof asked : length);
		if (n < 4) { say("SET_CUR: %zd bytes", n); return; }
		/* the one format, the frame asked for, 30 fps: whatever else was asked */
		parameters(control, asked.bFrameIndex);
		if (selector == UVC_VS_PROBE_CONTROL) {
			restart_stream(0, 0);                /* the host is not streaming: stop sending */
		} else {
			say("commit: frame %u (%ux%u)", control->bFrameIndex, frames[control->bFrameIndex - 1].width, frames[control->bFrameIndex - 1].height);
			restart_stream(1, control->bFrameIndex);
		}
		return;
	}
	case UVC_GET_CUR: case UVC_GET_MIN: case UVC_GET_MAX: case UVC_GET_DEF:
		reply(control, sizeof *control, length);
		return;
	case UVC_GET_LEN: {
		uint8_t size[2] = { sizeof *control, 0 };
		reply(size, 2, length);
		return;
	}
	case UVC_GET_INFO: {
		uint8_t info = 0x03;                      /* supports GET and SET */
		reply(&info, 1, length);
		return;
	}
	default:
		stall(r);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) { fprintf(stderr, "usage: uvcgadget GADGETFS_DIR [FPS]\n"); return 2; }
	const char *dir = argv[1];
	if (argc > 2 && atoi(argv[2]) > 0) fps = atoi(argv[2]);

	/* the controller's file is the one entry of a fresh gadgetfs mount (dummy_udc) */
	DIR *listing = opendir(dir);
	if (!listing) { perror(dir); return 1; }
	char path[512] = "";
	for (struct dirent *e; (e = readdir(listing));)
		if (e->d_name[0] != '.') snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
	closedir(listing);
	if (!path[0]) { say("no device controller file in %s", dir); return 1; }
	ep0 = open(path, O_RDWR);
	if (ep0 < 0) { perror(path); return 1; }

	parameters(&probe, 1);
	parameters(&commit, 1);
	struct sigaction action;
	memset(&action, 0, sizeof action);
	action.sa_handler = on_signal;                    /* no SA_RESTART: the write returns EINTR */
	sigaction(SIGUSR1, &action, NULL);
	pthread_t watchdog;
	if (pthread_create(&streamer, NULL, stream_frames, NULL) != 0 || pthread_create(&watchdog, NULL, watch_writes, NULL) != 0) {
		say("cannot start threads");
		return 1;
	}
	/* SIGUSR1 is for the streamer's writes only */
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);

	/* Full-speed configuration, high-speed configuration, device descriptor. Writing them binds
	 * the gadget and connects it: the host enumerates at once, and gadgetfs passes the requests
	 * it does not answer itself (strings, SET_CONFIGURATION) on only once ep0 is being read, so
	 * everything else is ready before and the event loop follows right away. */
	static struct bytes all;
	le32(&all, 0);                                    /* gadgetfs device message tag */
	struct bytes fs = { .length = 0 }, hs = { .length = 0 }, device = { .length = 0 };
	configuration(&fs, 0);
	configuration(&hs, 1);
	device_descriptor(&device);
	memcpy(all.data + all.length, fs.data, (size_t)fs.length); all.length += fs.length;
	memcpy(all.data + all.length, hs.data, (size_t)hs.length); all.length += hs.length;
	memcpy(all.data + all.length, device.data, (size_t)device.length); all.length += device.length;
	if (write(ep0, all.data, (size_t)all.length) != all.length) { say("configuring %s: %s", path, strerror(errno)); return 1; }
	say("bound through %s (%d bytes of descriptors); the host enumerates the camera now", path, all.length);

	for (;;) {
		struct usb_gadgetfs_event events[5];
		ssize_t n = read(ep0, events, sizeof events);
		if (n < 0) {
			if (errno == EINTR || errno == EIDRM || errno == EAGAIN) continue;
			say("ep0: %s", strerror(errno));
			return 1;
		}
		for (size_t i = 0; i < (size_t)n / sizeof events[0]; i++) {
			switch (events[i].type) {
			case GADGETFS_CONNECT:
				say("connected at %s speed", events[i].u.speed == USB_SPEED_HIGH ? "high" : "full");
				break;
			case GADGETFS_DISCONNECT:
				say("disconnected");
				restart_stream(0, 0);
				break;
			case GADGETFS_SETUP:
				setup(&events[i].u.setup, dir);
				break;
			default:
				break;
			}
		}
	}
}
