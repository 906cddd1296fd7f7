// libxml2's HTML parser, for LectorBooks' lenient reading of content documents.
#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, whose headers clash with Foundation's bundled ICU. Only the
// layout of xmlCharEncodingHandler depends on it, which Swift never touches (pointers only).
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
