#ifndef ADHOCBUILD_CLIBXML2_SHIM_H
#define ADHOCBUILD_CLIBXML2_SHIM_H

// libxml2's headers pull in ICU when it is enabled, and ICU's types clash with
// Foundation's. Read the version header first, switch ICU off, then the rest.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

#endif
