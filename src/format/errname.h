/*
 * The one name of an error, as every line gives it ("EIO", "LSC_E_GPU"):
 * part of the line vocabulary, so that a pin backend, a reader and the
 * loader's own lines name an error the same way, and the triage reads back
 * the names it wrote.
 */
#ifndef LSC_FORMAT_ERRNAME_H
#define LSC_FORMAT_ERRNAME_H

/* The name of an error as the lines give it: "EIO" for -EIO, "LSC_E_GPU"
 * for LSC_E_GPU, "error" for a value that is neither. @err is negative, as
 * the library returns it; a positive errno is read as its negative. The
 * string is static. Thread-safe. */
const char *lsc__errname(int err);

#endif
