#ifndef KODO_CLIBXML2_SHIM_H
#define KODO_CLIBXML2_SHIM_H

// libxml2's pull parser (xmlTextReader), for measuring it against the other XML parsers on OSS's
// answers. Nothing but the include: the reader API has no variadic calls to wrap.
#include <libxml/xmlreader.h>

#endif
