#ifndef ADHOCBUILD_CQRENCODE_SHIM_H
#define ADHOCBUILD_CQRENCODE_SHIM_H

#include <qrencode.h>

#endif
