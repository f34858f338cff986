#ifndef ADHOCBUILD_CLIBZIP_SHIM_H
#define ADHOCBUILD_CLIBZIP_SHIM_H

#include <zip.h>

/* libzip's command bitmaps are macros Swift cannot import; these wrap them. */
static inline zip_int64_t adhocbuild_zip_source_supports_readable(void) {
    return ZIP_SOURCE_SUPPORTS_READABLE;
}

#endif
