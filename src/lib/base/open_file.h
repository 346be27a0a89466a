/* Opening input files (library-internal). */
#ifndef HEADALLOC_OPEN_FILE_H
#define HEADALLOC_OPEN_FILE_H

#include <stdio.h>

/* fopen(path, "rb"), refusing a directory (which fopen accepts on Linux
 * and whose first read then fails with a less telling EISDIR).  NULL with
 * errno set on failure. */
FILE *ha_open_input(const char *path);

#endif
