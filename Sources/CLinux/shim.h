#ifndef ADHOCBUILD_CLINUX_SHIM_H
#define ADHOCBUILD_CLINUX_SHIM_H

// Linux calls in glibc that Swift's Glibc module leaves out (they need _GNU_SOURCE, which a
// header of a module cannot switch on for headers already built into another module).

#include <linux/falloc.h>

// fallocate(2), as glibc declares it under _GNU_SOURCE on 64-bit systems (off_t is long).
extern int fallocate(int fd, int mode, long offset, long length);

/// Reserves `length` bytes from the start of `fd` without changing its size; -1 with errno
/// (EOPNOTSUPP on file systems that cannot) otherwise.
static inline int adhocbuild_reserve_space(int fd, long length) {
    return fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, length);
}

#endif
