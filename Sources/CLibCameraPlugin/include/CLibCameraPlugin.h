// The CaptureKitLibCamera library's one export, ck_lc_plugin_api(), is declared in
// CLibCamera.h beside the function table it returns; nothing else is public here.
#ifndef CLIBCAMERAPLUGIN_H
#define CLIBCAMERAPLUGIN_H
#include "CLibCamera.h"
#endif
