/* lbproducer: feeds a v4l2loopback node with one JPEG file as an MJPEG camera would, through
 * write(2), at a fixed rate, until killed.
 *   lbproducer /dev/videoN FILE.jpg WIDTH HEIGHT [FPS=30]
 * The picture never changes, so a consumer can compare every decoded frame with the reference
 * decoded by an independent decoder (ffmpeg). */
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static unsigned char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) { perror(path); return NULL; }
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	unsigned char *buf = n > 0 ? malloc((size_t)n) : NULL;
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "%s: read failed\n", path); fclose(f); free(buf); return NULL; }
	fclose(f);
	*size = (size_t)n;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 5) { fprintf(stderr, "usage: lbproducer /dev/videoN FILE.jpg WIDTH HEIGHT [FPS]\n"); return 2; }
	size_t size;
	unsigned char *jpeg = read_file(argv[2], &size);
	if (!jpeg) return 1;
	int fps = argc > 5 ? atoi(argv[5]) : 30;
	if (fps <= 0) fps = 30;
	int fd = open(argv[1], O_RDWR);
	if (fd < 0) { perror(argv[1]); return 1; }
	struct v4l2_format fmt;
	memset(&fmt, 0, sizeof fmt);
	fmt.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	fmt.fmt.pix.width = (unsigned)atoi(argv[3]);
	fmt.fmt.pix.height = (unsigned)atoi(argv[4]);
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_MJPEG;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	/* v4l2loopback sizes its buffers from this; a JPEG frame is variable-size, so leave room */
	fmt.fmt.pix.sizeimage = (unsigned)size * 2;
	if (ioctl(fd, VIDIOC_S_FMT, &fmt) != 0) { perror("VIDIOC_S_FMT (output)"); return 1; }
	fprintf(stderr, "lbproducer: %ux%u MJPG, %zu-byte frames at %d fps\n", fmt.fmt.pix.width, fmt.fmt.pix.height, size, fps);
	struct timespec period = { 0, 1000000000L / fps };
	for (;;) {
		ssize_t n = write(fd, jpeg, size);
		if (n != (ssize_t)size) {
			if (n < 0 && errno == EINTR) continue;
			perror("write");
			return 1;
		}
		nanosleep(&period, NULL);
	}
}
