/* Opening input files (library-internal). */
#ifndef HEADALLOC_OPEN_FILE_H
#define HEADALLOC_OPEN_FILE_H

#include <stdio.h>

/* fopen(path, "rb"), refusing a directory (which fopen accepts on Linux
 * and whose first read then fails with a less telling EISDIR).  NULL with
 * errno set on failure.  A FIFO or a terminal is read as a stream: the
 * YAML readers need nothing else. */
FILE *ha_open_input(const char *path);

/* The same for an input that must be a regular file (one that is sought
 * in, and whose size is its length).  It is opened without blocking, so a
 * FIFO with no writer cannot hang the process, then checked: anything but
 * a regular file gives NULL with *kind naming what it is ("a FIFO", "a
 * directory", "a character device"...) and errno EINVAL.  Other failures
 * give NULL, *kind NULL and errno set. */
FILE *ha_open_regular(const char *path, const char **kind);

#endif
