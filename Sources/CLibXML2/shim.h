#ifndef KODO_CLIBXML2_SHIM_H
#define KODO_CLIBXML2_SHIM_H

// libxml2's pull parser (xmlTextReader), for measuring it against the other XML parsers on OSS's
// answers. Nothing but the include: the reader API has no variadic calls to wrap.
//
// Debian's libxml2 is built with ICU, and its headers then include the system's ICU headers,
// whose declarations clash with the ICU copy that Foundation brings into the same Swift module
// graph. Only the encoding handler's private converter fields depend on it, and Swift never
// touches that struct, so the ICU part of the headers is switched off.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>

#endif
