/* Every libxml2 function Lector calls, forwarded to libxml2.so.2 opened at run time
 * (CLibraryLoader: once, when first used; forwarders under the library's own names, hidden). */
#include "CLibXML2.h"

#include "CLibraryLoader.h"

#include <libxml/SAX2.h>
#include <libxml/entities.h>

#define LECTOR_LIBXML2_FUNCTIONS(R, V) \
    V(xmlInitParser, (void), ()) \
    R(xmlParserCtxtPtr, xmlNewParserCtxt, (void), ()) \
    V(xmlFreeParserCtxt, (xmlParserCtxtPtr c), (c)) \
    R(htmlParserCtxtPtr, htmlNewParserCtxt, (void), ()) \
    V(htmlFreeParserCtxt, (htmlParserCtxtPtr c), (c)) \
    R(xmlDocPtr, xmlCtxtReadMemory, (xmlParserCtxtPtr c, const char *b, int s, const char *u, const char *e, int o), \
      (c, b, s, u, e, o)) \
    R(htmlDocPtr, htmlCtxtReadMemory, (htmlParserCtxtPtr c, const char *b, int s, const char *u, const char *e, int o), \
      (c, b, s, u, e, o)) \
    R(xmlDocPtr, xmlCtxtReadIO, (xmlParserCtxtPtr c, xmlInputReadCallback r, xmlInputCloseCallback x, void *i, \
                                 const char *u, const char *e, int o), (c, r, x, i, u, e, o)) \
    R(htmlDocPtr, htmlCtxtReadIO, (htmlParserCtxtPtr c, xmlInputReadCallback r, xmlInputCloseCallback x, void *i, \
                                   const char *u, const char *e, int o), (c, r, x, i, u, e, o)) \
    V(xmlFreeDoc, (xmlDocPtr d), (d)) \
    V(xmlStopParser, (xmlParserCtxtPtr c), (c)) \
    R(long, xmlByteConsumed, (xmlParserCtxtPtr c), (c)) \
    R(xmlEntityPtr, xmlGetDocEntity, (const xmlDoc *d, const xmlChar *n), (d, n)) \
    R(int, xmlSAXVersion, (xmlSAXHandler *h, int v), (h, v))

LECTOR_LIBRARY_DEFINE(LECTOR_LIBXML2_FUNCTIONS, .soname = "libxml2.so.2", .title = "libxml2", .package = "libxml2",
                      .needs = "libxml2 2.9 or later")

const char *lector_libxml2_open(void) { return lector_library_open(&lector_library_instance); }
