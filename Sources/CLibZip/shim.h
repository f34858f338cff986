#ifndef ADHOCBUILD_CLIBZIP_SHIM_H
#define ADHOCBUILD_CLIBZIP_SHIM_H

#include <zip.h>

#endif
