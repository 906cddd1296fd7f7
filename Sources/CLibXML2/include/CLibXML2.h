/* libxml2's API, reached at run time (dlopen), never linked: a program starts without libxml2
 * and the ICU it pulls in (0.3-0.4 ms, and their pages in an idle daemon) until it reads a book,
 * an SSML text or a lexicon. Headers from libxml2-dev under /usr/include/libxml2 (Package.swift). */
#ifndef LECTOR_CLIBXML2_H
#define LECTOR_CLIBXML2_H

#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU, whose headers clash with Foundation's bundled ICU. Only the
 * layout of xmlCharEncodingHandler depends on it, which Swift never touches (pointers only). */
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>

/* Opens libxml2.so.2 once (thread-safe) and resolves every function Lector calls: NULL, or why
 * not, ending with the package to install. The functions may be called only after NULL. */
const char *lector_libxml2_open(void);

#endif
