#ifndef ADHOCBUILD_CLIBDEFLATE_SHIM_H
#define ADHOCBUILD_CLIBDEFLATE_SHIM_H

#include <libdeflate.h>

#endif
