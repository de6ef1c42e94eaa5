/*
 * The names of errors in the lines (errname.h): the library's own LSC_E_*
 * codes, which strerrorname_np() does not know, and errno names otherwise.
 */
#include <string.h>

#include <loadscope/common.h>

#include "format/errname.h"

const char *lsc__errname(int err)
{
	if (err > 0)
		err = -err;
	switch (err) {
	case LSC_E_NODEVICE: return "LSC_E_NODEVICE";
	case LSC_E_NORUNTIME: return "LSC_E_NORUNTIME";
	case LSC_E_GPU: return "LSC_E_GPU";
	case LSC_E_HASH: return "LSC_E_HASH";
	case LSC_E_CHANGED: return "LSC_E_CHANGED";
	case LSC_E_SHORT: return "LSC_E_SHORT";
	default: break;
	}
	const char *n = err < 0 && err > -4096 ? strerrorname_np(-err) : NULL;
	return n ? n : "error";
}
