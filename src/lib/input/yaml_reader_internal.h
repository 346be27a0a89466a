/* What the two halves of the YAML reader share (yaml_reader.c: errors,
 * input, events; yaml_values.c: scalars and collections).  Not for the
 * readers built on it: they use yaml_reader.h. */
#ifndef HEADALLOC_YAML_READER_INTERNAL_H
#define HEADALLOC_YAML_READER_INTERNAL_H

#include <yaml.h>

#include "yaml_reader.h"

/* A quoted scalar: quotes, HA_YR_QUOTE_MAX bytes, "..." and the NUL. */
#define HA_YR_QUOTE_SIZE (HA_YR_QUOTE_MAX + 6)
/* "the quoted string " and a quoted scalar. */
#define HA_YR_DESCRIBE_SIZE (HA_YR_QUOTE_SIZE + 24)
/* "an integer from N to N", "a string of 1 to N bytes without control
 * characters" with 20-digit numbers. */
#define HA_YR_WHAT_SIZE 96
/* The list of a key table in "expected one of the keys ...". */
#define HA_YR_KEY_LIST_SIZE 256

/* What an event is, for "expected X, found Y": "the number '3'", "a
 * map", "the end of the file"...; written into buf, which is returned. */
const char *ha_yr_describe(const yaml_event_t *ev,
                           char buf[HA_YR_DESCRIBE_SIZE]);

#endif
