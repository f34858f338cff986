#ifndef ADHOCBUILD_CZLIB_SHIM_H
#define ADHOCBUILD_CZLIB_SHIM_H

#include <zlib.h>

#endif
