/* headalloc — the export macro.
 *
 * The shared library is built with hidden visibility: only declarations
 * marked HA_API (the public API in include/headalloc/) are exported, so
 * helpers internal to the library cannot become part of its ABI by
 * accident. */
#ifndef HEADALLOC_EXPORT_H
#define HEADALLOC_EXPORT_H

#if defined(HA_BUILDING_LIBRARY) && (defined(__GNUC__) || defined(__clang__))
#define HA_API __attribute__((visibility("default")))
#else
#define HA_API
#endif

#endif
