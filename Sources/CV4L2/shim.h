#ifndef CAPTUREKIT_CV4L2_SHIM_H
#define CAPTUREKIT_CV4L2_SHIM_H

/*
 * The kernel's V4L2 user API (linux/videodev2.h from linux-libc-dev) for Swift. The VIDIOC_*
 * request numbers are function-like _IOWR macros Swift cannot import, and ioctl() is variadic,
 * so both are re-exported here as static inline functions. Request numbers do not fit a C int:
 * they are returned as unsigned long, never put in an enum.
 */

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/videodev2.h>

/* ioctl(2) with one pointer argument; returns -1 and sets errno on failure. */
static inline int ck_v4l2_ioctl(int fd, unsigned long request, void *argument) {
    return ioctl(fd, request, argument);
}

#define CK_V4L2_REQUEST(name) static inline unsigned long ck_##name(void) { return name; }
CK_V4L2_REQUEST(VIDIOC_QUERYCAP)
CK_V4L2_REQUEST(VIDIOC_ENUM_FMT)
CK_V4L2_REQUEST(VIDIOC_ENUM_FRAMESIZES)
CK_V4L2_REQUEST(VIDIOC_ENUM_FRAMEINTERVALS)
CK_V4L2_REQUEST(VIDIOC_G_FMT)
CK_V4L2_REQUEST(VIDIOC_S_FMT)
CK_V4L2_REQUEST(VIDIOC_G_PARM)
CK_V4L2_REQUEST(VIDIOC_S_PARM)
CK_V4L2_REQUEST(VIDIOC_REQBUFS)
CK_V4L2_REQUEST(VIDIOC_QUERYBUF)
CK_V4L2_REQUEST(VIDIOC_QBUF)
CK_V4L2_REQUEST(VIDIOC_DQBUF)
CK_V4L2_REQUEST(VIDIOC_STREAMON)
CK_V4L2_REQUEST(VIDIOC_STREAMOFF)
CK_V4L2_REQUEST(VIDIOC_EXPBUF)
CK_V4L2_REQUEST(VIDIOC_QUERY_EXT_CTRL)
CK_V4L2_REQUEST(VIDIOC_QUERYMENU)
CK_V4L2_REQUEST(VIDIOC_G_EXT_CTRLS)
CK_V4L2_REQUEST(VIDIOC_S_EXT_CTRLS)
#undef CK_V4L2_REQUEST

/* The control IDs the typed camera API maps (V4L2_CID_* are sums of macros). */
#define CK_V4L2_CID(name) static inline uint32_t ck_##name(void) { return name; }
CK_V4L2_CID(V4L2_CID_BRIGHTNESS)
CK_V4L2_CID(V4L2_CID_CONTRAST)
CK_V4L2_CID(V4L2_CID_SATURATION)
CK_V4L2_CID(V4L2_CID_HUE)
CK_V4L2_CID(V4L2_CID_GAIN)
CK_V4L2_CID(V4L2_CID_SHARPNESS)
CK_V4L2_CID(V4L2_CID_GAMMA)
CK_V4L2_CID(V4L2_CID_AUTO_WHITE_BALANCE)
CK_V4L2_CID(V4L2_CID_WHITE_BALANCE_TEMPERATURE)
CK_V4L2_CID(V4L2_CID_POWER_LINE_FREQUENCY)
CK_V4L2_CID(V4L2_CID_HFLIP)
CK_V4L2_CID(V4L2_CID_VFLIP)
CK_V4L2_CID(V4L2_CID_EXPOSURE_AUTO)
CK_V4L2_CID(V4L2_CID_EXPOSURE_ABSOLUTE)
CK_V4L2_CID(V4L2_CID_FOCUS_AUTO)
CK_V4L2_CID(V4L2_CID_FOCUS_ABSOLUTE)
CK_V4L2_CID(V4L2_CID_AUTO_FOCUS_START)
CK_V4L2_CID(V4L2_CID_ZOOM_ABSOLUTE)
CK_V4L2_CID(V4L2_CID_FLASH_LED_MODE)
#undef CK_V4L2_CID

/* Flags that are plain literals in the header but wanted as UInt32 in Swift. */
static inline uint32_t ck_v4l2_next_control_flags(void) { return V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND; }

#endif
